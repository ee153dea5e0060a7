import { Worker } from 'bullmq';
import type { EnginePool } from '../engine/index.js';
import type { PolicyEvaluateJobData, PolicyEvaluateJobSummary } from './policy-evaluate-job.js';
import { createPolicyEvaluateProcessor } from './processors/policy-evaluate.processor.js';
import { QUEUE_NAMES, queuePrefix } from './queue-names.js';
import { createRedisClient, type RedisConnection } from './redis-connection.js';

export interface EvaluationWorkerOptions {
  connection: RedisConnection;
  pool: EnginePool;
  /** Jobs (micro-batches) processed at once; default 4 × pool threads, so threads never wait for Redis. */
  concurrency?: number;
  prefix?: string;
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
  const concurrency = options.concurrency ?? options.pool.size * 4;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const publisher = createRedisClient(options.connection, 'policy-evaluate-replies');
  const connection = createRedisClient(options.connection, 'policy-evaluate-worker');
  const stats: EvaluationWorkerStats = { jobs: 0, items: 0, failedJobs: 0 };
  const processor = createPolicyEvaluateProcessor({
    pool: options.pool,
    publish: (channel, message) => publisher.publish(channel, message),
    onBatch(summary) {
      stats.jobs++;
      stats.items += summary.items;
    },
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
  try {
    await worker.waitUntilReady();
  } catch (error) {
    await Promise.allSettled([worker.close(), publisher.quit(), connection.quit()]);
    throw error;
  }
  return {
    worker,
    stats: () => ({ ...stats }),
    async close() {
      await worker.close();
      await Promise.allSettled([publisher.quit(), connection.quit()]);
    },
  };
}
