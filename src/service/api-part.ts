import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerUnparsableRequests } from '../api/index.js';
import { loadJwtKeyRing, type JwtKeyRing } from '../auth/index.js';
import type { AppendListeners } from '../jobs/index.js';
import { assembleApiApp } from './api-app.js';
import { openAppendListeners } from './append-listeners.js';
import { loadBuiltins } from './builtin-library.js';
import { trackHandlers } from './handler-tracking.js';
import { baseUrl, listen } from './http-listen.js';
import { openRequestRedis } from './request-redis.js';
import type { PartStarter } from './running-part.js';
import { StartupError } from './startup-error.js';

/** The HTTP API. */
export const startApi: PartStarter = async (runtime) => {
  const { config, logger, store } = runtime;
  let keyRing: JwtKeyRing;
  try {
    keyRing = await loadJwtKeyRing({ jwtKeys: config.JWT_KEYS, dataDir: config.DATA_DIR });
  } catch (error) {
    throw new StartupError(`cannot load the token signing keys: ${(error as Error).message}`);
  }
  const builtins = await loadBuiltins(config);
  // Evaluations always travel through the `policy-evaluate` queue, also in role `all`, so any
  // worker process can take them and the queue semantics are the same in every deployment.
  const requestRedis = await openRequestRedis(config, logger);
  let appendListeners: AppendListeners;
  try {
    appendListeners = await openAppendListeners(config, logger);
  } catch (error) {
    requestRedis.disconnect();
    throw error;
  }
  const { app, auditVerifier, auditOutboxFollower, streams, release } = assembleApiApp(runtime, { keyRing, builtins, requestRedis, appendListeners });
  const handlers = trackHandlers(app.callback());
  const server = createServer(handlers.handle);
  answerUnparsableRequests(server);
  let address: AddressInfo;
  try {
    address = await listen(server, config.PORT, config.HOST);
  } catch (error) {
    await release();
    throw error;
  }
  logger.info({ host: address.address, port: address.port, jwtKeys: keyRing.source, store: store.kind }, 'api listening');
  auditOutboxFollower.start(config.AUDIT_OUTBOX_INTERVAL_SECONDS * 1000);
  return {
    name: 'api',
    url: baseUrl(address),
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Streams never end on their own: end them first, and their connections close with them.
      await streams.close();
      server.closeIdleConnections();
      const grace = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE_SECONDS * 1000);
      await closed;
      clearTimeout(grace);
      // No client is left to read a verification: walks of long chains end at their next page.
      auditVerifier.close();
      // A handler goes on after its client hung up; it still needs Redis, the dispatcher and the writer.
      await handlers.settled();
      // Its pass appends through the writer, so it ends before the writer closes.
      await auditOutboxFollower.stop();
      // Requests are done: nothing waits on the dispatcher any more; the writer flushes what is queued.
      await release();
    },
  };
};
