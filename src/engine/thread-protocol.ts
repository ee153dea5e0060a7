/**
 * The message format between the pool (main side) and an evaluation thread. Plain structured-clone
 * data only: the thread may be terminated at any moment, so nothing here owns a resource.
 */
import type { EvaluationBatch } from './evaluation-batch.js';
import type { SerializedItemResult } from './item-result.js';

/** Settings the pool passes to every thread through `workerData`. */
export interface ThreadSettings {
  /** Compiled programs kept per tenant. */
  cacheSize: number;
  /** Tenants whose programs a thread keeps (least recently used tenant goes first). */
  cacheTenants: number;
  /** Step budget for every evaluation; undefined keeps the language default. */
  stepBudget?: number;
  /** Largest JSON result of one evaluation, in bytes. */
  maxResultBytes: number;
  /** Largest JSON decision trace of one evaluation, in bytes. */
  maxTraceBytes: number;
}

/** One task: a slice of a batch, all of one tenant, run in order on one thread. */
export interface ThreadTask {
  batch: EvaluationBatch;
  /**
   * Shared progress cells (Int32, see PROGRESS_*): the thread publishes which item runs and since
   * when, so the pool can hold each item to its own wall-time limit without a message per item.
   */
  progress: SharedArrayBuffer;
  /** `Date.now()` on the main side when the task was submitted; start offsets are relative to it. */
  baseTime: number;
}

/** Item result as the thread returns it, plus whether the compiled program came from the cache. */
export interface ThreadItemResult extends SerializedItemResult {
  cacheHit: boolean;
  executionTimeMs: number;
}

export interface ThreadTaskResult {
  results: ThreadItemResult[];
}

/** Index of the item currently running; -1 until the first one starts. */
export const PROGRESS_INDEX = 0;
/** Start of the current item, in ms after `baseTime`. Written before PROGRESS_INDEX. */
export const PROGRESS_STARTED_AT = 1;
export const PROGRESS_CELLS = 2;

export function createProgressBuffer(): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(PROGRESS_CELLS * Int32Array.BYTES_PER_ELEMENT);
  Atomics.store(new Int32Array(buffer), PROGRESS_INDEX, -1);
  return buffer;
}
