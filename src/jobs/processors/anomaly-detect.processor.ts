import type { Job } from 'bullmq';
import type { AnomalyDetector, DetectionRun } from '../../anomalies/index.js';
import type { AnomalyDetectJobData } from '../anomaly-jobs.js';

/** A job naming a tenant detects for it alone (on demand); the scheduled job, for every tenant. */
export function createAnomalyDetectProcessor(detector: AnomalyDetector) {
  return async (job: Job<AnomalyDetectJobData>): Promise<DetectionRun> => {
    const tenantId = job.data?.tenantId;
    if (tenantId === undefined) return detector.detectAll();
    if (typeof tenantId !== 'string') throw new Error('anomaly-detect job data has a tenantId that is not a string');
    const started = performance.now();
    const report = await detector.detectTenant(tenantId);
    return { at: report.windowEnd, tenants: [report], failures: [], durationMs: performance.now() - started };
  };
}
