import { Queue, Worker } from 'bullmq';
import { createRedisClient, DEFAULT_QUEUE_PREFIX, QUEUE_NAMES, queuePrefix, type RedisConnection } from '../../jobs/index.js';
import type { AnomalyDetector } from '../anomaly-detector.js';
import type { AnomalyVerifier } from '../anomaly-verifier.js';
import type { RolloutGuard } from '../rollout-guard.js';
import { ROLLOUT_GUARD_ROUNDS, startAnomalyDetectSchedule, type AnomalyDetectSchedule } from './anomaly-detect-schedule.js';
import { createAnomalyDetectProcessor } from './anomaly-detect.processor.js';
import type { AnomalyDetectJobData, AnomalyVerifyJobData } from './anomaly-jobs.js';
import { createAnomalyVerifyProcessor, isVerifyJobData } from './anomaly-verify.processor.js';
import { createDetectionRotation } from './detection-rotation.js';

export interface AnomalyWorkersOptions {
  connection: RedisConnection;
  prefix?: string;
  detector: AnomalyDetector;
  verifier: AnomalyVerifier;
  /** How often the scheduled detection runs, in milliseconds. */
  detectEveryMs: number;
  /** The rollout guard and how often its rounds run (ROLLOUT_GUARD_INTERVAL_SECONDS), in the same queue. */
  guard?: { guard: RolloutGuard; everyMs: number };
  /** Verification jobs run at once by this process. Default 4. */
  verifyConcurrency?: number;
  onError?: (error: Error) => void;
  /** A tenant's detection job failed (the other tenants' jobs are unaffected). */
  onDetectionError?: (tenantId: string | undefined, error: Error) => void;
}

/**
 * Detection jobs (scheduled rounds and tenants' rounds) run at once by this process: tenants'
 * rounds go side by side, so a tenant with much to assess delays no other's by more than a slice.
 */
const DETECT_CONCURRENCY = 4;

export interface AnomalyWorkers {
  readonly detectWorker: Worker<AnomalyDetectJobData>;
  readonly verifyWorker: Worker<AnomalyVerifyJobData>;
  /** Finishes the jobs in progress, then disconnects. The schedule stays in Redis for other workers. */
  close(): Promise<void>;
}

/**
 * Consumes `anomaly-detect` and `anomaly-verify` on this process, and declares the detection
 * schedule. The schedule is a BullMQ job scheduler kept in Redis: every worker declares the same one
 * (idempotent), and each interval produces one job that one worker takes — detection runs once per
 * interval however many workers run, not once per process. That job queues one job per tenant,
 * which any worker takes (see anomaly-detect.processor.ts). Each worker declares the schedule again
 * when Redis has lost it (see anomaly-detect-schedule.ts).
 */
export async function startAnomalyWorkers(options: AnomalyWorkersOptions): Promise<AnomalyWorkers> {
  if (!Number.isInteger(options.detectEveryMs) || options.detectEveryMs < 1) throw new RangeError('detectEveryMs must be a positive integer');
  const detectPrefix = queuePrefix(QUEUE_NAMES.anomalyDetect, options.prefix);
  const verifyPrefix = queuePrefix(QUEUE_NAMES.anomalyVerify, options.prefix);
  const schedulerClient = createRedisClient(options.connection, 'anomaly-detect-schedule');
  const detectClient = createRedisClient(options.connection, 'anomaly-detect-worker');
  const verifyClient = createRedisClient(options.connection, 'anomaly-verify-worker');
  const scheduler = new Queue<AnomalyDetectJobData>(QUEUE_NAMES.anomalyDetect, { connection: schedulerClient, prefix: detectPrefix });
  scheduler.on('error', (error) => options.onError?.(error));
  const rotation = createDetectionRotation(schedulerClient, options.prefix ?? DEFAULT_QUEUE_PREFIX);
  const detectWorker = new Worker<AnomalyDetectJobData>(QUEUE_NAMES.anomalyDetect, createAnomalyDetectProcessor({
    detector: options.detector,
    queue: scheduler,
    rotation,
    ...(options.guard ? { guard: options.guard.guard } : {}),
  }), {
    connection: detectClient,
    prefix: detectPrefix,
    concurrency: DETECT_CONCURRENCY,
  });
  const verifyWorker = new Worker<AnomalyVerifyJobData>(QUEUE_NAMES.anomalyVerify, createAnomalyVerifyProcessor(options.verifier), {
    connection: verifyClient,
    prefix: verifyPrefix,
    concurrency: options.verifyConcurrency ?? 4,
  });
  detectWorker.on('error', (error) => options.onError?.(error));
  detectWorker.on('failed', (job, error) => options.onDetectionError?.(job?.data?.tenantId, error));
  verifyWorker.on('error', (error) => options.onError?.(error));
  verifyWorker.on('failed', (job, error) => {
    // After the last attempt nothing would move the anomaly out of VERIFYING: put it back to OPEN.
    if (job === undefined || job.attemptsMade < (job.opts.attempts ?? 1) || !isVerifyJobData(job.data)) return;
    options.verifier.abandon(job.data, error.message).catch((failure: Error) => options.onError?.(failure));
  });
  let schedule: AnomalyDetectSchedule | undefined;
  let guardSchedule: AnomalyDetectSchedule | undefined;
  const closeAll = async () => {
    // Awaited after the connections close: a check waiting for an absent Redis ends only then.
    const scheduleStopped = Promise.all([schedule?.stop(), guardSchedule?.stop()]);
    await Promise.allSettled([detectWorker.close(), verifyWorker.close(), scheduler.close()]);
    // Connections handed to BullMQ are shared ones it does not close.
    await Promise.allSettled([schedulerClient.quit(), detectClient.quit(), verifyClient.quit()]);
    await scheduleStopped;
  };
  try {
    schedule = await startAnomalyDetectSchedule({
      queue: scheduler,
      redis: schedulerClient,
      everyMs: options.detectEveryMs,
      onError: (error) => options.onError?.(error),
    });
    if (options.guard !== undefined) {
      guardSchedule = await startAnomalyDetectSchedule({
        queue: scheduler,
        redis: schedulerClient,
        everyMs: options.guard.everyMs,
        schedule: ROLLOUT_GUARD_ROUNDS,
        onError: (error) => options.onError?.(error),
      });
    }
    await Promise.all([detectWorker.waitUntilReady(), verifyWorker.waitUntilReady()]);
  } catch (error) {
    await closeAll();
    throw error;
  }
  return { detectWorker, verifyWorker, close: closeAll };
}
