// An app on a real HTTP port of 127.0.0.1, closed with its open connections.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpListener {
  baseUrl: string;
  close(): Promise<void>;
}

export async function listen(app: { callback(): RequestListener }): Promise<HttpListener> {
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
