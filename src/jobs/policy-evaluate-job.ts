import type { ItemResult } from '../engine/index.js';
import { QUEUE_NAMES, queuePrefix } from './queue-names.js';

/** One micro-batch of evaluations: the data of a `policy-evaluate` job. */
export interface PolicyEvaluateJobData {
  /** Also the job id; the reply carries it back. */
  batchId: string;
  /** Pub/sub channel of the dispatcher waiting for this batch. */
  replyTo: string;
  /** Distinct sources of the batch; items point into it, so a policy repeated N times travels once. */
  sources: string[];
  items: PolicyEvaluateJobItem[];
}

export interface PolicyEvaluateJobItem {
  sourceIndex: number;
  locale: string;
  functionName: string;
  context: unknown;
  trace?: boolean;
}

/** Published on `replyTo` when the batch is done: results in item order, or why the whole batch failed. */
export type PolicyEvaluateReply = { batchId: string; results: ItemResult[] } | { batchId: string; error: string };

/** What the job stores as its return value (kept small: the results travel on the reply channel). */
export interface PolicyEvaluateJobSummary {
  items: number;
  failed: number;
}

export function replyChannelName(dispatcherId: string, prefix?: string): string {
  return `${queuePrefix(QUEUE_NAMES.policyEvaluate, prefix)}:reply:${dispatcherId}`;
}
