import type { Job } from 'bullmq';
import type { EnginePool, EvaluationItem } from '../../engine/index.js';
import type { PolicyEvaluateJobData, PolicyEvaluateJobSummary, PolicyEvaluateReply } from '../policy-evaluate-job.js';

export interface PolicyEvaluateProcessorDeps {
  pool: EnginePool;
  /** Sends the reply to the waiting dispatcher (Redis PUBLISH in production). */
  publish(channel: string, message: string): Promise<unknown>;
  /** Called with each batch's summary before its reply leaves, so counters never lag behind replies. */
  onBatch?(summary: PolicyEvaluateJobSummary): void;
}

/**
 * Runs one micro-batch on the thread pool and publishes the results to the dispatcher that waits for
 * them. Item failures are results, not job failures; only an engine-wide failure fails the job, and
 * the dispatcher is told at once instead of waiting for its timeout.
 */
export function createPolicyEvaluateProcessor(deps: PolicyEvaluateProcessorDeps) {
  return async function processPolicyEvaluate(job: Job<PolicyEvaluateJobData>): Promise<PolicyEvaluateJobSummary> {
    const { batchId, replyTo, sources, items } = job.data;
    const evaluationItems: EvaluationItem[] = items.map((item) => ({
      source: sources[item.sourceIndex] as string,
      locale: item.locale,
      functionName: item.functionName,
      context: item.context,
      trace: item.trace === true,
    }));
    let reply: PolicyEvaluateReply;
    try {
      reply = { batchId, results: await deps.pool.evaluateMany(evaluationItems) };
    } catch (error) {
      await deps.publish(replyTo, JSON.stringify({ batchId, error: error instanceof Error ? error.message : String(error) }));
      throw error;
    }
    const summary = { items: reply.results.length, failed: reply.results.filter((result) => !result.ok).length };
    deps.onBatch?.(summary);
    await deps.publish(replyTo, JSON.stringify(reply));
    return summary;
  };
}
