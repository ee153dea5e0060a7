import type { Job } from 'bullmq';
import type { EnginePool } from '../../engine/index.js';
import type { PolicyEvaluateJobData, PolicyEvaluateJobSummary } from './policy-evaluate-job.js';
import { replyMessages, type SettledItem } from './reply-messages.js';
import type { RunRegistry } from './run-registry.js';

export interface PolicyEvaluateProcessorDeps {
  pool: EnginePool;
  /** Sends a reply message to the waiting dispatcher (Redis PUBLISH in production). */
  publish(channel: string, message: string): Promise<unknown>;
  /** Jobs in progress by batch id, so a cancellation reaches the run (see startEvaluationWorker). */
  runs?: RunRegistry;
  /** Largest reply message in bytes (one larger result travels alone). */
  maxReplyBytes?: number;
  /** Called with each batch's summary before its last reply leaves, so counters never lag behind replies. */
  onBatch?(summary: PolicyEvaluateJobSummary): void;
}

/**
 * Runs one micro-batch on the thread pool and publishes results to the dispatcher that waits for
 * them as they are done — the items settled in one turn of the event loop share messages of bounded
 * size — so a cheap item never waits for a costly one of another tenant in the same batch. Item
 * failures are results, not job failures; only an engine-wide failure fails the job, and the
 * dispatcher is told at once instead of waiting for its timeout.
 */
export function createPolicyEvaluateProcessor(deps: PolicyEvaluateProcessorDeps) {
  return async function processPolicyEvaluate(job: Job<PolicyEvaluateJobData>): Promise<PolicyEvaluateJobSummary> {
    const { batchId, replyTo, batch } = job.data;
    const settled: SettledItem[] = [];
    let published: Promise<unknown> = Promise.resolve();
    let scheduled = false;
    const publishSettled = () => {
      scheduled = false;
      const messages = replyMessages(batchId, settled.splice(0), deps.maxReplyBytes);
      // In order, one after the other; a lost message surfaces to the caller as its timeout.
      published = published.then(async () => {
        for (const message of messages) await deps.publish(replyTo, message);
      }).catch(() => {});
    };
    const run = deps.pool.run(batch, {
      onResult(position, result) {
        settled.push({ position, json: result.json });
        if (!scheduled) {
          scheduled = true;
          setImmediate(publishSettled);
        }
      },
    });
    deps.runs?.register(batchId, run);
    let results;
    try {
      results = await run.results;
    } catch (error) {
      await published;
      await deps.publish(replyTo, JSON.stringify({ batchId, error: error instanceof Error ? error.message : String(error) }));
      throw error;
    } finally {
      deps.runs?.unregister(batchId);
    }
    const summary = { items: results.length, failed: results.filter((result) => !result.ok).length };
    deps.onBatch?.(summary);
    if (settled.length > 0) publishSettled();
    await published;
    return summary;
  };
}
