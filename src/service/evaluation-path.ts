import { createEvaluationDispatcher, createEvaluationService, createRedisBatchTransport, type EvaluationService } from '../evaluation/index.js';
import { createBuiltinVersions, createVersionResolver, type BuiltinModule } from '../policies/index.js';
import type { Runtime } from './runtime.js';

export interface EvaluationPathOptions {
  /**
   * How long one evaluation waits for the store before it answers 503 (EVALUATION_STORE_WAIT_MS).
   * Absent: as long as the store's own timeouts say.
   */
  storeWaitMs?: number;
}

/** The one evaluation path as a process composes it: dispatcher to `policy-evaluate`, audit, rollups, versions. */
export function createEvaluationPath(
  { config, logger, store, activationNotices, audit }: Runtime,
  builtins: readonly BuiltinModule[],
  { storeWaitMs }: EvaluationPathOptions = {},
) {
  const dispatcher = createEvaluationDispatcher({
    transport: createRedisBatchTransport({
      connection: config.REDIS_URL,
      prefix: config.REDIS_KEY_PREFIX,
      responseTimeoutMs: config.NO_WORKER_TIMEOUT_MS,
    }),
    maxBatchItems: config.BATCH_MAX_ITEMS,
    flushMs: config.DISPATCH_FLUSH_MS,
    maxInFlight: config.DISPATCH_MAX_IN_FLIGHT,
    maxHoldMs: config.DISPATCH_MAX_HOLD_MS,
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
    onStoreWaitExceeded: ({ tenantId, part, waitMs }) =>
      logger.warn({ tenantId, part, waitMs }, 'evaluation answered 503: the store did not answer within EVALUATION_STORE_WAIT_MS'),
  });
  return { dispatcher, builtinVersions, versions, evaluation };
}
