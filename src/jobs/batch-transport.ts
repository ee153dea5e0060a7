import type { EvaluationBatch, ItemResult } from '../engine/index.js';

/** A batch handed to a transport: its results, and a way to say nobody waits for some of them. */
export interface SentBatch {
  /** One result per item, in batch order. Rejects when nothing could evaluate the batch. */
  readonly results: Promise<ItemResult[]>;
  /** Items (all without positions) whose callers have gone: not run if they have not started. */
  cancel(positions?: readonly number[]): void;
}

/** Where the dispatcher sends its batches: the `policy-evaluate` queue, or an in-process pool. */
export interface BatchTransport {
  send(batch: EvaluationBatch): SentBatch;
  close(): Promise<void>;
}
