import { createAnomalyDetector, createAnomalyVerifier, createRolloutGuard, startAnomalyWorkers } from '../anomalies/index.js';
import { newAuditOutboxLease } from '../audit/index.js';
import { redisConnection } from '../config/index.js';
import { observeWorker } from '../metrics/index.js';
import { createBuiltinVersions, createRedisRolloutTally, createRolloutControl, createVersionResolver } from '../policies/index.js';
import { anomalySettingsOf } from './anomaly-settings-of.js';
import { loadBuiltins } from './builtin-library.js';
import type { RunningPart } from './running-part.js';
import type { Runtime } from './runtime.js';

/** Scheduled anomaly detection and verification jobs (`anomaly-detect`, `anomaly-verify`). */
export async function startAnomalyProcessor(runtime: Runtime): Promise<RunningPart> {
  const { config, logger, store } = runtime;
  const builtins = await loadBuiltins(config);
  const builtinModules = new Set(builtins.map((module) => module.moduleName));
  const audit = runtime.audit.recorder;
  const settings = anomalySettingsOf(runtime, audit);
  const owing = {
    store,
    settings,
    audit,
    builtinModules,
    auditLease: newAuditOutboxLease(config.AUDIT_OUTBOX_LEASE_SECONDS * 1000),
    onAuditMarkError: (error: unknown) => logger.warn({ err: error }, 'audit record written but its entry not marked; the audit outbox follower marks it'),
  };
  // The guard aborts through the same control as the API: recorded in the chain, announced to every process.
  const builtinVersions = createBuiltinVersions(builtins);
  const rolloutTally = createRedisRolloutTally({ redis: runtime.redis, keyPrefix: `${config.REDIS_KEY_PREFIX}:` });
  const guard = createRolloutGuard({
    store,
    settings,
    tally: rolloutTally,
    onError: (error, running) =>
      logger.warn({ err: error, tenantId: running.tenantId, policyModule: running.activation.policyModule }, 'rollout guard could not check a rollout; the next round tries again'),
    control: createRolloutControl({
      policies: store.policies,
      rollups: store.rollups,
      versions: createVersionResolver({ policies: store.policies, builtins: builtinVersions, notices: runtime.activationNotices }),
      builtins: builtinVersions,
      rolloutTally,
      audit,
      auditLease: owing.auditLease,
      onAuditMarkError: owing.onAuditMarkError,
    }),
  });
  let workers: Awaited<ReturnType<typeof startAnomalyWorkers>>;
  try {
    workers = await startAnomalyWorkers({
      connection: redisConnection(config),
      prefix: config.REDIS_KEY_PREFIX,
      // New anomalies and status changes owe their records like the API's; an API process's follower writes the ones they could not.
      detector: createAnomalyDetector({
        ...owing,
        budget: { versionsPerRound: config.ANOMALY_DETECT_MAX_VERSIONS, openedPerRound: config.ANOMALY_DETECT_MAX_OPENED },
      }),
      verifier: createAnomalyVerifier(owing),
      detectEveryMs: config.ANOMALY_DETECT_INTERVAL_SECONDS * 1000,
      guard: { guard, everyMs: config.ROLLOUT_GUARD_INTERVAL_SECONDS * 1000 },
      onError: (error) => logger.warn({ err: error }, 'anomaly worker error'),
      onDetectionError: (tenantId, error) => logger.error({ err: error, tenantId }, 'anomaly detection failed for a tenant'),
    });
  } catch (error) {
    await audit.flush();
    throw error;
  }
  observeWorker(workers.detectWorker, runtime.metrics);
  observeWorker(workers.verifyWorker, runtime.metrics);
  logger.info({ everySeconds: config.ANOMALY_DETECT_INTERVAL_SECONDS }, 'anomaly detection scheduled');
  return {
    name: 'anomalies',
    async stop() {
      await workers.close();
      await rolloutTally.close();
      await audit.flush();
    },
  };
}
