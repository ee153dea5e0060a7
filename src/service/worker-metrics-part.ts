import { startMetricsServer } from '../metrics/index.js';
import type { PartStarter } from './running-part.js';
import { StartupError } from './startup-error.js';

/** A worker process's metrics on METRICS_PORT (the API serves its own at GET /metrics). */
export const startWorkerMetrics: PartStarter = async ({ config, logger, metrics }) => {
  if (config.METRICS_PORT === undefined) return { name: 'metrics (off)', stop: async () => {} };
  let server: Awaited<ReturnType<typeof startMetricsServer>>;
  try {
    server = await startMetricsServer(metrics, config.METRICS_PORT, config.HOST);
  } catch (error) {
    throw new StartupError(`cannot serve metrics on port ${config.METRICS_PORT} (${(error as Error).message}): set another METRICS_PORT`);
  }
  logger.info({ port: server.port }, 'metrics listening');
  return { name: 'metrics', url: `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${server.port}/metrics`, stop: () => server.close() };
};
