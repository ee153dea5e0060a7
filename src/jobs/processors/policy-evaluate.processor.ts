import type { Job } from 'bullmq';
import type { EnginePool, EngineRun } from '../../engine/index.js';
import type { PolicyEvaluateJobData, PolicyEvaluateJobSummary } from '../policy-evaluate-job.js';
import { replyMessages } from '../reply-messages.js';

export interface PolicyEvaluateProcessorDeps {
  pool: EnginePool;
  /** Sends a reply message to the waiting dispatcher (Redis PUBLISH in production). */
  publish(channel: string, message: string): Promise<unknown>;
  /** Jobs in progress by batch id, so a cancellation reaches the run (see startEvaluationWorker). */
  runs?: Map<string, EngineRun>;
  /** Largest reply message in bytes (one larger result travels alone). */
  maxReplyBytes?: number;
  /** Called with each batch's summary before its reply leaves, so counters never lag behind replies. */
  onBatch?(summary: PolicyEvaluateJobSummary): void;
}

/**
 * Runs one micro-batch on the thread pool and publishes the results to the dispatcher that waits for
 * them, in messages of bounded size. Item failures are results, not job failures; only an
 * engine-wide failure fails the job, and the dispatcher is told at once instead of waiting for its
 * timeout.
 */
export function createPolicyEvaluateProcessor(deps: PolicyEvaluateProcessorDeps) {
  return async function processPolicyEvaluate(job: Job<PolicyEvaluateJobData>): Promise<PolicyEvaluateJobSummary> {
    const { batchId, replyTo, batch } = job.data;
    const run = deps.pool.run(batch);
    deps.runs?.set(batchId, run);
    let results;
    try {
      results = await run.results;
    } catch (error) {
      await deps.publish(replyTo, JSON.stringify({ batchId, error: error instanceof Error ? error.message : String(error) }));
      throw error;
    } finally {
      deps.runs?.delete(batchId);
    }
    const summary = { items: results.length, failed: results.filter((result) => !result.ok).length };
    deps.onBatch?.(summary);
    for (const message of replyMessages(batchId, results, deps.maxReplyBytes)) await deps.publish(replyTo, message);
    return summary;
  };
}
