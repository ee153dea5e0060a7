import { DependencyUnavailableError } from '../errors/index.js';

/**
 * The store's part of one evaluation (looking up its policies, storing its audit records) settles
 * within `waitMs` or the evaluation answers 503. The store's own timeouts apply per
 * operation and a stalled store can stack several of them (a lookup, then records queued behind a
 * batch); the caller waits for none of that past `waitMs`. Work already sent goes on: a record
 * stored after its 503 is an evaluation audited without an answer, and the client's retry is a new one.
 */
export function withinStoreWait<T>(work: Promise<T>, waitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DependencyUnavailableError('the store')), Math.max(0, waitMs));
    timer.unref();
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
