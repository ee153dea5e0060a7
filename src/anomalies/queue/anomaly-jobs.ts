import { randomUUID } from 'node:crypto';
import { Queue, type JobsOptions } from 'bullmq';
import { createRedisClient, QUEUE_NAMES, queuePrefix, type RedisConnection } from '../../jobs/index.js';
import type { TenantDetection } from '../anomaly-detector.js';

/**
 * `anomaly-detect`: one tenant's detection round (queued by a scheduled round, or on demand), or,
 * without a tenant, the scheduled round itself, which queues one job per tenant with recent rollups.
 */
export interface AnomalyDetectJobData {
  tenantId?: string;
}

/**
 * What a tenant's detection job returns (also what `npm run anomalies -- detect --json` prints):
 * its one tenant's round. A round that fails fails its job instead; a caller gathering several
 * tenants' jobs lists them under `failures`.
 */
export interface DetectionRun {
  at: string;
  tenants: TenantDetection[];
  failures: Array<{ tenantId: string; error: string }>;
  durationMs: number;
}

/** What a scheduled round returns: the tenant jobs it queued. */
export interface DetectionRound {
  at: string;
  jobs: Array<{
    tenantId: string;
    jobId: string;
    /** False when the tenant's job of an earlier round was still waiting or running: that job stands for this round too. */
    queued: boolean;
  }>;
}

/** `anomaly-verify`: the anomaly and the seq of the change that made it VERIFYING. */
export interface AnomalyVerifyJobData {
  tenantId: string;
  anomalyId: string;
  seq: number;
}

/** The id of the job scheduler that runs detection every interval, however many workers run. */
export const ANOMALY_DETECT_SCHEDULER_ID = 'anomaly-detect';

/** The id of the job scheduler that runs the rollout guard every ROLLOUT_GUARD_INTERVAL_SECONDS. */
export const ROLLOUT_GUARD_SCHEDULER_ID = 'rollout-guard';
/** The guard's jobs, in the `anomaly-detect` queue beside the detection rounds. */
export const ROLLOUT_GUARD_JOB_NAME = 'guard-rollouts';

/** Finished jobs kept for inspection; older ones are removed so Redis does not grow. */
export const KEEP_FINISHED_JOBS = { count: 200 } as const;

export const VERIFY_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: KEEP_FINISHED_JOBS,
  removeOnFail: KEEP_FINISHED_JOBS,
};

/** How often an on-demand detection looks whether its job has finished. */
const POLL_MS = 100;

/** No worker finished an on-demand detection in time. */
export class DetectionTimeoutError extends Error {
  override readonly name = 'DetectionTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`no worker finished the detection within ${timeoutMs} ms`);
  }
}

/** Longest wait for Redis to take a job before the caller is told it could not be queued. */
const ENQUEUE_TIMEOUT_MS = 5000;

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export interface AnomalyJobQueues {
  /** Queues a verification; its job id is derived from the request, so a repeat is not queued twice. */
  enqueueVerification(data: AnomalyVerifyJobData): Promise<void>;
  /** Queues a detection for one tenant and waits for its result (workers run it). */
  runDetection(tenantId: string, timeoutMs: number): Promise<unknown>;
  close(): Promise<void>;
}

export interface AnomalyJobQueuesOptions {
  connection: RedisConnection;
  prefix?: string;
}

/** The producer side of the anomaly queues (API, operators' scripts). */
export function createAnomalyJobQueues(options: AnomalyJobQueuesOptions): AnomalyJobQueues {
  const client = createRedisClient(options.connection, 'anomaly-queues');
  const verify = new Queue<AnomalyVerifyJobData>(QUEUE_NAMES.anomalyVerify, {
    connection: client,
    prefix: queuePrefix(QUEUE_NAMES.anomalyVerify, options.prefix),
  });
  const detect = new Queue<AnomalyDetectJobData>(QUEUE_NAMES.anomalyDetect, {
    connection: client,
    prefix: queuePrefix(QUEUE_NAMES.anomalyDetect, options.prefix),
  });
  // Failures reach callers through the rejected call.
  verify.on('error', () => {});
  detect.on('error', () => {});

  return {
    async enqueueVerification(data) {
      const jobId = `${data.tenantId}.${data.anomalyId}.${data.seq}`; // job ids may not contain `:`
      await withTimeout(verify.add('verify', data, { ...VERIFY_JOB_OPTIONS, jobId }), ENQUEUE_TIMEOUT_MS, 'anomaly-verify');
    },

    async runDetection(tenantId, timeoutMs) {
      const job = await withTimeout(
        detect.add('detect', { tenantId }, { jobId: `on-demand.${tenantId}.${randomUUID()}`, removeOnComplete: KEEP_FINISHED_JOBS, removeOnFail: KEEP_FINISHED_JOBS }),
        ENQUEUE_TIMEOUT_MS,
        'anomaly-detect',
      );
      // Polled rather than awaited through QueueEvents: a completion published before the event
      // stream is first read would be missed, and this waits for one job of an operator's command.
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const state = await job.getState();
        if (state === 'completed') return (await detect.getJob(job.id!))?.returnvalue;
        if (state === 'failed') throw new Error((await detect.getJob(job.id!))?.failedReason ?? 'the job failed');
        if (Date.now() >= deadline) throw new DetectionTimeoutError(timeoutMs);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },

    async close() {
      await Promise.allSettled([verify.close(), detect.close()]);
      // A connection handed to BullMQ is a shared one it does not close; left open it would keep a script alive.
      await client.quit().catch(() => undefined);
    },
  };
}
