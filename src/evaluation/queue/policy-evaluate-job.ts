import type { EvaluationBatch, ItemResult } from '../../engine/index.js';
import { QUEUE_NAMES, queuePrefix } from '../../jobs/index.js';

/** One micro-batch: the data of a `policy-evaluate` job. */
export interface PolicyEvaluateJobData {
  /** Also the job id; every reply and cancellation names it. */
  batchId: string;
  /** Pub/sub channel of the dispatcher waiting for this batch. */
  replyTo: string;
  batch: EvaluationBatch;
}

/**
 * Published on `replyTo`: results of some items as `[position, result]` pairs (a batch's results
 * come in several messages of bounded size, each item's as soon as it is done), or why the whole
 * batch failed.
 */
export type PolicyEvaluateReply = { batchId: string; results: Array<[number, ItemResult]> } | { batchId: string; error: string };

/** Published on the cancel channel: nobody waits for these items (all, without `positions`). */
export interface PolicyEvaluateCancel {
  batchId: string;
  positions?: number[];
}

/** What the job stores as its return value (kept small: the results travel on the reply channel). */
export interface PolicyEvaluateJobSummary {
  items: number;
  failed: number;
}

export function replyChannelName(dispatcherId: string, prefix?: string): string {
  return `${queuePrefix(QUEUE_NAMES.policyEvaluate, prefix)}:reply:${dispatcherId}`;
}

/** One channel for all cancellations: every worker hears them and drops what it holds of the batch. */
export function cancelChannelName(prefix?: string): string {
  return `${queuePrefix(QUEUE_NAMES.policyEvaluate, prefix)}:cancel`;
}
