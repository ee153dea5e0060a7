import { MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';

/** How deep a chain of `cause`s is followed: wrappers of ours add one or two levels. */
const MAX_CAUSE_DEPTH = 4;

/**
 * True when the store did not answer (MongoDB unreachable, connection lost, no server found in time;
 * SQLite locked by another process past its busy timeout): the request may succeed later, so callers
 * answer 503 with Retry-After instead of a 500. Wrapped errors are recognised through their `cause` (or the driver's `errorResponse`).
 */
export function isStoreUnreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH && current instanceof Error; depth += 1) {
    if (
      current instanceof MongoNetworkError ||
      current instanceof MongoServerSelectionError ||
      current instanceof MongoNotConnectedError ||
      current instanceof MongoTopologyClosedError
    ) {
      return true;
    }
    // No pooled connection came free in time: every one waits on a store that does not answer.
    if (current.name === 'MongoWaitQueueTimeoutError') return true;
    const code = (current as { code?: unknown }).code;
    // better-sqlite3 reports extended codes too (SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE, …).
    if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) return true;
    // The driver's bulk write error keeps the network error it gave up on as `errorResponse`.
    current = current.cause ?? (current as { errorResponse?: unknown }).errorResponse;
  }
  return false;
}
