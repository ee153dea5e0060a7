import type { Job } from 'bullmq';
import type { AnomalyVerifier, VerificationOutcome } from '../anomaly-verifier.js';
import type { AnomalyVerifyJobData } from './anomaly-jobs.js';

export function isVerifyJobData(data: unknown): data is AnomalyVerifyJobData {
  const d = data as Partial<AnomalyVerifyJobData> | null;
  return d !== null && typeof d === 'object' && typeof d.tenantId === 'string' && typeof d.anomalyId === 'string' && Number.isSafeInteger(d.seq);
}

export function createAnomalyVerifyProcessor(verifier: AnomalyVerifier) {
  return async (job: Job<AnomalyVerifyJobData>): Promise<VerificationOutcome> => {
    if (!isVerifyJobData(job.data)) throw new Error('anomaly-verify job data is not {tenantId, anomalyId, seq}');
    return verifier.verify(job.data);
  };
}
