import type { EvaluationBatch, ItemResult } from '../engine/index.js';

/** Receives one item's result, as soon as it is known, by its position in the batch. */
export type DeliverResult = (position: number, result: ItemResult) => void;

/** A batch handed to a transport: when it is done, and a way to say nobody waits for some items. */
export interface SentBatch {
  /**
   * Resolves once every item was delivered; rejects when nothing could evaluate the rest of the
   * batch (items delivered before that keep their results).
   */
  readonly done: Promise<void>;
  /** Items whose callers have gone: not run if they have not started. */
  cancel(positions: readonly number[]): void;
}

/** Where the dispatcher sends its batches: the `policy-evaluate` queue, or an in-process pool. */
export interface BatchTransport {
  send(batch: EvaluationBatch, deliver: DeliverResult): SentBatch;
  close(): Promise<void>;
}
