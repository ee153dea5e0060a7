import { DependencyUnavailableError } from '../errors/index.js';

/** Which part of an evaluation's store work did not settle within its wait. */
export type StoreWaitPart = 'policy lookup' | 'audit records';

/** An evaluation that answers 503 because the store did not answer within its wait. */
export interface StoreWaitExceeded {
  tenantId: string;
  part: StoreWaitPart;
  waitMs: number;
}

/**
 * The store's part of one evaluation (looking up its policies, storing its audit records) settles
 * within `waitMs` or the evaluation answers 503, after `onExceeded` is told. The store's own timeouts
 * apply per operation and a stalled store can stack several of them (a lookup, then records queued
 * behind a batch); the caller waits for none of that past `waitMs`. Work already sent goes on: a record
 * stored after its 503 is an evaluation audited without an answer, and the client's retry is a new one.
 * Without `waitMs` the work is awaited as it is, for as long as the store's own timeouts say.
 */
export function withinStoreWait<T>(work: Promise<T>, waitMs: number | undefined, onExceeded: () => void): Promise<T> {
  if (waitMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onExceeded();
      reject(new DependencyUnavailableError('the store'));
    }, Math.max(0, waitMs));
    timer.unref();
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
