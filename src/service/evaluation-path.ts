import { redisConnection } from '../config/index.js';
import { createEvaluationDispatcher, createEvaluationService, createRedisBatchTransport, type EvaluationService } from '../evaluation/index.js';
import { createBuiltinVersions, createRedisRolloutTally, createVersionResolver, type BuiltinModule } from '../policies/index.js';
import type { Runtime } from './runtime.js';

export interface EvaluationPathOptions {
  /**
   * How long one evaluation waits for the store before it answers 503 (EVALUATION_STORE_WAIT_MS).
   * Absent: as long as the store's own timeouts say.
   */
  storeWaitMs?: number;
}

/** Shadow copies' jobs: behind every answer's job in the `policy-evaluate` queue. */
const SHADOW_JOB_PRIORITY = 10;
/** How long copies gather before their batch leaves, and how many one batch holds at least. */
const SHADOW_FLUSH_MS = 25;
const SHADOW_BATCH_ITEMS = 256;

/**
 * The one evaluation path as a process composes it: dispatcher to `policy-evaluate`, audit, rollups,
 * versions, and rollouts' shadow copies (a dispatcher of their own, low-priority jobs, one batch in
 * flight) with their tally in Redis.
 */
export function createEvaluationPath(
  runtime: Runtime,
  builtins: readonly BuiltinModule[],
  { storeWaitMs }: EvaluationPathOptions = {},
) {
  const { config, logger, store, activationNotices, audit } = runtime;
  const dispatcherTo = (options: { priority?: number; maxInFlight: number; flushMs: number; maxBatchItems: number }) =>
    createEvaluationDispatcher({
      transport: createRedisBatchTransport({
        connection: redisConnection(config),
        prefix: config.REDIS_KEY_PREFIX,
        responseTimeoutMs: config.NO_WORKER_TIMEOUT_MS,
        ...(options.priority === undefined ? {} : { priority: options.priority }),
      }),
      maxBatchItems: options.maxBatchItems,
      flushMs: options.flushMs,
      maxInFlight: options.maxInFlight,
      maxHoldMs: config.DISPATCH_MAX_HOLD_MS,
    });
  const dispatcher = dispatcherTo({ maxInFlight: config.DISPATCH_MAX_IN_FLIGHT, flushMs: config.DISPATCH_FLUSH_MS, maxBatchItems: config.BATCH_MAX_ITEMS });
  // Nobody waits for a copy: it gathers longer into larger jobs, whose queue hop is paid once for many.
  const shadowDispatcher = dispatcherTo({
    priority: SHADOW_JOB_PRIORITY,
    maxInFlight: 1,
    flushMs: SHADOW_FLUSH_MS,
    maxBatchItems: Math.max(config.BATCH_MAX_ITEMS, SHADOW_BATCH_ITEMS),
  });
  const rolloutTally = createRedisRolloutTally({
    redis: runtime.redis,
    keyPrefix: `${config.REDIS_KEY_PREFIX}:`,
    onError: (error) => logger.warn({ err: error }, 'shadow comparisons not counted: Redis failed'),
  });
  const builtinVersions = createBuiltinVersions(builtins);
  const versions = createVersionResolver({
    policies: store.policies,
    builtins: builtinVersions,
    activeVersionCacheMs: config.ACTIVE_VERSION_CACHE_MS,
    notices: activationNotices,
  });
  const evaluation: EvaluationService = createEvaluationService({
    dispatcher,
    audit: audit.recorder,
    rollups: store.rollups,
    policies: versions,
    limits: {
      contextMaxDepth: config.CONTEXT_MAX_DEPTH,
      maxResponseBytes: config.EVALUATION_MAX_RESPONSE_BYTES,
      ...(storeWaitMs === undefined ? {} : { storeWaitMs }),
    },
    shadow: { dispatcher: shadowDispatcher, tally: rolloutTally },
    onStoreWaitExceeded: ({ tenantId, part, waitMs }) =>
      logger.warn({ tenantId, part, waitMs }, 'evaluation answered 503: the store did not answer within EVALUATION_STORE_WAIT_MS'),
  });
  /** Waits for what is in flight (shadow copies included), stores the rollups and counts, disconnects. */
  async function close(): Promise<void> {
    await evaluation.flush();
    await Promise.all([dispatcher.close(), shadowDispatcher.close()]);
    await rolloutTally.close();
  }
  return { dispatcher, builtinVersions, versions, evaluation, rolloutTally, close };
}
