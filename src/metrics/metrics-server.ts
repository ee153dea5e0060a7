import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceMetrics } from './service-metrics.js';

/**
 * GET /metrics on its own port, for a process without the HTTP API (role `worker`): its queue
 * timings and thread utilisation are its own and no API process can report them.
 */
export async function startMetricsServer(metrics: ServiceMetrics, port: number, host: string): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics is served here\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
