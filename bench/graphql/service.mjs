// The service as role `all` runs it (API, `policy-evaluate` queue, worker threads, SQLite store,
// batched audit writer, policy registry) with the GraphQL route mounted beside the evaluation
// routes. run.mjs uses it only while the built service does not serve /graphql itself.
// Configuration comes from the same environment variables as the service. Prints `ready <port>`.
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { createApp, createEvaluationRoutes, createTenantRateLimiter } from '../../dist/src/api/index.js';
import { createAuditChainWriter } from '../../dist/src/audit/index.js';
import { createNonceGuard, createTokenVerifier, loadJwtKeyRing } from '../../dist/src/auth/index.js';
import { loadConfig, storeLocation } from '../../dist/src/config/index.js';
import { createEnginePool } from '../../dist/src/engine/index.js';
import { createEvaluationService } from '../../dist/src/evaluation/index.js';
import { createGraphqlRoute } from '../../dist/src/graphql/index.js';
import { createEvaluationDispatcher, startEvaluationWorker } from '../../dist/src/jobs/index.js';
import { createLogger } from '../../dist/src/logging/index.js';
import { createDomainDecider, createPolicyLookup, createPolicyRegistry, loadBuiltinLibrary } from '../../dist/src/policies/index.js';
import { openStore } from '../../dist/src/store/index.js';

const config = loadConfig(process.env);
const logger = createLogger({ level: config.LOG_LEVEL });
const store = await openStore(storeLocation(config));
const redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
await new Promise((resolve) => redis.once('ready', resolve));

const pool = createEnginePool({
  threads: config.ENGINE_THREADS,
  taskTimeoutMs: config.EVALUATION_TIMEOUT_MS,
  stepBudget: config.EVALUATION_STEP_BUDGET,
  cacheSize: config.PROGRAM_CACHE_SIZE,
});
const worker = await startEvaluationWorker({
  connection: config.REDIS_URL,
  pool,
  concurrency: config.WORKER_CONCURRENCY ?? 4 * config.ENGINE_THREADS,
  prefix: config.REDIS_KEY_PREFIX,
});
const dispatcher = createEvaluationDispatcher({
  connection: config.REDIS_URL,
  prefix: config.REDIS_KEY_PREFIX,
  maxBatchItems: config.BATCH_MAX_ITEMS,
  flushMs: config.DISPATCH_FLUSH_MS,
  responseTimeoutMs: config.NO_WORKER_TIMEOUT_MS,
});
const audit = createAuditChainWriter(store.audit);
const registry = createPolicyRegistry({
  policies: store.policies,
  rollups: store.rollups,
  audit,
  dispatcher,
  builtins: await loadBuiltinLibrary(),
});
const nonceGuard = createNonceGuard({ redis, keyPrefix: `${config.REDIS_KEY_PREFIX}:nonce:`, windowSeconds: config.SIGNATURE_WINDOW_SECONDS });
const keyRing = await loadJwtKeyRing({ jwtKeys: config.JWT_KEYS, dataDir: config.DATA_DIR });

const app = createApp({
  logger,
  store,
  redis,
  tokenVerifier: createTokenVerifier(keyRing),
  rateLimiter: createTenantRateLimiter({
    redis,
    points: config.RATE_LIMIT_POINTS,
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    keyPrefix: `${config.REDIS_KEY_PREFIX}:rate-limit`,
  }),
  bodyLimitBytes: config.BODY_LIMIT,
  routes: [
    createEvaluationRoutes({
      service: createEvaluationService({ dispatcher, audit }),
      tenants: store.tenants,
      nonceGuard,
      signatureWindowSeconds: config.SIGNATURE_WINDOW_SECONDS,
      maxBatchItems: config.EVALUATE_BATCH_MAX_ITEMS,
    }),
    createGraphqlRoute({
      tenants: store.tenants,
      nonceGuard,
      policies: createPolicyLookup(registry),
      decide: createDomainDecider(registry),
      signatureWindowSeconds: config.SIGNATURE_WINDOW_SECONDS,
    }),
  ],
});

const server = createServer(app.callback());
await new Promise((resolve) => server.listen(config.PORT, config.HOST, resolve));
process.stdout.write(`ready ${server.address().port}\n`);

process.on('SIGTERM', async () => {
  await new Promise((resolve) => {
    server.close(resolve);
    server.closeIdleConnections();
  });
  await dispatcher.close();
  await registry.flush();
  await audit.close();
  await worker.close();
  await pool.close();
  await store.close();
  redis.disconnect();
  process.exit(0);
});
