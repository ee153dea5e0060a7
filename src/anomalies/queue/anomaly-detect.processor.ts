import type { Job, Queue } from 'bullmq';
import type { AnomalyDetector } from '../anomaly-detector.js';
import type { GuardRound, RolloutGuard } from '../rollout-guard.js';
import { KEEP_FINISHED_JOBS, ROLLOUT_GUARD_JOB_NAME, type AnomalyDetectJobData, type DetectionRound, type DetectionRun } from './anomaly-jobs.js';
import type { DetectionRotation } from './detection-rotation.js';

export interface AnomalyDetectProcessorDeps {
  detector: AnomalyDetector;
  /** The `anomaly-detect` queue, where a scheduled round queues its tenants' jobs. */
  queue: Queue<AnomalyDetectJobData>;
  rotation: DetectionRotation;
  /** Runs the rollout guard's scheduled rounds; without it, they do nothing. */
  guard?: RolloutGuard;
}

/**
 * A job naming a tenant runs one detection round for it, from where its previous round stopped.
 * The scheduled job only queues one such job per tenant with recent rollups, so each tenant's
 * round is a job of its own: one tenant's work never holds up another's inside a job, and a
 * tenant's failure fails its job alone.
 */
export function createAnomalyDetectProcessor(deps: AnomalyDetectProcessorDeps) {
  const { detector, queue, rotation } = deps;

  async function queueRound(job: Job<AnomalyDetectJobData>): Promise<DetectionRound> {
    const at = new Date().toISOString();
    const tenants = await detector.tenantsToDetect();
    // The job id holds the round (a retried round queues nothing twice); the deduplication id, the
    // tenant: while its job of an earlier round still waits or runs, no second one is queued.
    const jobIds = tenants.map((tenantId) => `round-${job.timestamp}.${tenantId}`);
    const added = await queue.addBulk(
      tenants.map((tenantId, i) => ({
        name: 'detect-tenant',
        data: { tenantId },
        opts: { jobId: jobIds[i]!, deduplication: { id: tenantId }, removeOnComplete: KEEP_FINISHED_JOBS, removeOnFail: KEEP_FINISHED_JOBS },
      })),
    );
    return {
      at,
      jobs: tenants.map((tenantId, i) => ({ tenantId, jobId: added[i]?.id ?? jobIds[i]!, queued: added[i]?.id === jobIds[i] })),
    };
  }

  return async (job: Job<AnomalyDetectJobData>): Promise<DetectionRun | DetectionRound | GuardRound> => {
    if (job.name === ROLLOUT_GUARD_JOB_NAME) return deps.guard === undefined ? { checked: 0, aborted: [], failed: 0 } : deps.guard.round();
    const tenantId = job.data?.tenantId;
    if (tenantId === undefined) return queueRound(job);
    if (typeof tenantId !== 'string') throw new Error('anomaly-detect job data has a tenantId that is not a string');
    const started = performance.now();
    const report = await detector.detectTenant(tenantId, await rotation.startAfter(tenantId));
    await rotation.save(tenantId, report.continueAfter);
    return { at: report.windowEnd, tenants: [report], failures: [], durationMs: performance.now() - started };
  };
}
