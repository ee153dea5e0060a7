import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StartupError } from './startup-error.js';

/** Listens on the port, or says what to do when another process holds it. */
export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new StartupError(`port ${port} on ${host} is already in use: stop the other process or set PORT`)
          : error,
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Where clients reach the server: a wildcard address is not one a browser or curl can use. */
export function baseUrl(address: AddressInfo): string {
  const host = ['0.0.0.0', '::'].includes(address.address) ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
