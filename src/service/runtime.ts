import type { Queue } from 'bullmq';
import { redactUrl, redisConnection, storeLocation, type Config, type ProcessRole } from '../config/index.js';
import { appendNoticeChannel, createAppendAnnouncer, createRedisClient, openServiceQueues, workflowLog, type RedisClient } from '../jobs/index.js';
import type { Logger } from '../logging/index.js';
import { createServiceMetrics, observeQueueDepths, type ServiceMetrics } from '../metrics/index.js';
import { createRedisActivationNotices, type ActivationNotices } from '../policies/index.js';
import { openStore, type Store } from '../store/index.js';
import { announcedWorkflowRepository, type WorkflowRepository } from '../workflows/index.js';
import { openAuditPath, type AuditPath } from './audit-path.js';
import { awaitRedisReady, probeRedis } from './redis-probe.js';
import { StartupError } from './startup-error.js';

/** What every role shares. */
export interface Runtime {
  config: Config;
  logger: Logger;
  store: Store;
  /** General-purpose connection (readiness, rate limits); roles open their own for blocking work. */
  redis: RedisClient;
  /** Deploys and rollbacks of any process, for the caches of active versions of this one. */
  activationNotices: ActivationNotices;
  /** This process's Prometheus metrics (GET /metrics on the API, METRICS_PORT on a worker). */
  metrics: ServiceMetrics;
  /** Every queue, for looking at (metrics, the operators' dashboard). */
  queues: Queue[];
  /** The one recorder every part stores audit records through, and this process's linker. */
  audit: AuditPath;
  /** The workflow store every part appends through: each append is announced to the event streams of every API process. */
  workflows: WorkflowRepository;
}

async function openConfiguredStore(config: Config): Promise<Store> {
  const location = storeLocation(config);
  try {
    return await openStore(location);
  } catch (error) {
    const cause = (error as Error).message;
    if (location.mongodbUrl !== undefined) {
      throw new StartupError(
        `mongodb is not usable at ${redactUrl(location.mongodbUrl)} (${cause}): start it, fix MONGODB_URL, or unset it to use the embedded SQLite store`,
      );
    }
    throw new StartupError(`cannot open the SQLite store at ${location.sqlitePath} (${cause}): check DATA_DIR`);
  }
}

/** Redis first (it fails fastest), then the store, the shared connections, metrics and the queues to look at. */
export async function openRuntime(config: Config, logger: Logger, role: ProcessRole): Promise<Runtime> {
  const connection = redisConnection(config);
  await probeRedis(connection);
  const store = await openConfiguredStore(config);
  // No offline queue: while Redis is away, commands fail at once instead of piling up.
  const redis = createRedisClient(connection, 'pe-runtime', { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  const subscriber = createRedisClient(connection, 'pe-policy-activations');
  subscriber.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  let activationNotices: ActivationNotices;
  try {
    await awaitRedisReady(redis, connection);
    activationNotices = await createRedisActivationNotices({
      publisher: redis,
      subscriber,
      channel: `${config.REDIS_KEY_PREFIX}:policy-activations`,
      onError: (error) => logger.warn({ err: error }, 'policy activation notices: Redis failed (caches fall back on ACTIVE_VERSION_CACHE_MS)'),
    });
  } catch (error) {
    subscriber.disconnect();
    redis.disconnect();
    await store.close();
    throw error;
  }
  const metrics = createServiceMetrics({ role });
  // The connection's own listener logs its errors; the queues' would repeat them once per queue.
  const queues = openServiceQueues(redis, config.REDIS_KEY_PREFIX, () => {});
  observeQueueDepths(metrics, queues);
  // Workflow appends and audit links tell the event streams of every API process.
  const announceAppend = createAppendAnnouncer({
    publisher: redis,
    channel: appendNoticeChannel(config.REDIS_KEY_PREFIX),
    onError: (error) => logger.warn({ err: error }, 'append notices: Redis failed (streams read on their timer)'),
  });
  const workflows = announcedWorkflowRepository(store.workflows, (tenantId, workflowId, seq) => announceAppend({ tenantId, log: workflowLog(workflowId), seq }));
  let audit: AuditPath;
  try {
    audit = await openAuditPath({ config, logger, store, redis, metrics, announceAppend });
  } catch (error) {
    await activationNotices.close();
    await Promise.allSettled(queues.map((queue) => queue.close()));
    redis.disconnect();
    await store.close();
    throw error;
  }
  return { config, logger, store, redis, activationNotices, metrics, queues, audit, workflows };
}

/** Stops sharing: the audit path (stored, linked, leases given back), activation notices, the queues looked at, the runtime connection, then the store. */
export async function closeRuntime(runtime: Runtime): Promise<void> {
  await runtime.audit.close();
  await runtime.activationNotices.close();
  await Promise.allSettled(runtime.queues.map((queue) => queue.close()));
  runtime.redis.disconnect();
  await runtime.store.close();
}
