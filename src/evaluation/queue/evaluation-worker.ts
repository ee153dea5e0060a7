import { Worker } from 'bullmq';
import type { EnginePool } from '../../engine/index.js';
import { createRedisClient, QUEUE_NAMES, queuePrefix, type RedisConnection } from '../../jobs/index.js';
import { cancelChannelName, type PolicyEvaluateCancel, type PolicyEvaluateJobData, type PolicyEvaluateJobSummary } from './policy-evaluate-job.js';
import { createPolicyEvaluateProcessor } from './policy-evaluate.processor.js';
import { createRunRegistry } from './run-registry.js';

export interface EvaluationWorkerOptions {
  connection: RedisConnection;
  pool: EnginePool;
  /**
   * Jobs (micro-batches) taken at once; default 16 × pool threads. Their items wait in the pool's
   * per-tenant queues, where threads are shared fairly, rather than in Redis behind a busy tenant.
   */
  concurrency?: number;
  prefix?: string;
  /** Largest reply message in bytes. */
  maxReplyBytes?: number;
  /** Receives errors that are not tied to a job (connection loss, job lock problems). */
  onError?: (error: Error) => void;
}

export interface EvaluationWorkerStats {
  jobs: number;
  items: number;
  failedJobs: number;
}

export interface EvaluationWorker {
  readonly worker: Worker<PolicyEvaluateJobData, PolicyEvaluateJobSummary>;
  stats(): EvaluationWorkerStats;
  /** Finishes the jobs in progress, then disconnects. Does not close the pool (the caller owns it). */
  close(): Promise<void>;
}

/** Consumes `policy-evaluate` jobs on this process (roles `worker` and `all`). */
export async function startEvaluationWorker(options: EvaluationWorkerOptions): Promise<EvaluationWorker> {
  const concurrency = options.concurrency ?? options.pool.size * 16;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const publisher = createRedisClient(options.connection, 'policy-evaluate-replies');
  const connection = createRedisClient(options.connection, 'policy-evaluate-worker');
  const cancellations = createRedisClient(options.connection, 'policy-evaluate-cancellations');
  const stats: EvaluationWorkerStats = { jobs: 0, items: 0, failedJobs: 0 };
  const runs = createRunRegistry();
  const processor = createPolicyEvaluateProcessor({
    pool: options.pool,
    publish: (channel, message) => publisher.publish(channel, message),
    runs,
    ...(options.maxReplyBytes !== undefined ? { maxReplyBytes: options.maxReplyBytes } : {}),
    onBatch(summary) {
      stats.jobs++;
      stats.items += summary.items;
    },
  });
  cancellations.on('error', (error: Error) => options.onError?.(error));
  cancellations.on('message', (_channel: string, message: string) => {
    let cancel: PolicyEvaluateCancel;
    try {
      cancel = JSON.parse(message) as PolicyEvaluateCancel;
    } catch {
      return;
    }
    if (cancel !== null && typeof cancel === 'object') runs.cancel(cancel);
  });
  const worker = new Worker<PolicyEvaluateJobData, PolicyEvaluateJobSummary>(QUEUE_NAMES.policyEvaluate, processor, {
    connection,
    prefix: queuePrefix(QUEUE_NAMES.policyEvaluate, options.prefix),
    concurrency,
  });
  worker.on('failed', () => {
    stats.failedJobs++;
  });
  worker.on('error', (error) => options.onError?.(error));
  const quitAll = () => Promise.allSettled([publisher.quit(), connection.quit(), cancellations.quit()]);
  try {
    await cancellations.subscribe(cancelChannelName(options.prefix));
    await worker.waitUntilReady();
  } catch (error) {
    await Promise.allSettled([worker.close()]);
    await quitAll();
    throw error;
  }
  return {
    worker,
    stats: () => ({ ...stats }),
    async close() {
      await worker.close();
      await quitAll();
    },
  };
}
