import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SseResponse } from './sse-response.js';

/** A heartbeat comment every this many ms keeps proxies and clients from taking the stream for dead. */
export const STREAM_HEARTBEAT_MS = 15_000;

/** What one read of a log gives: the items after a sequence, ascending, at most a page. */
export interface LogPage {
  items: ReadonlyArray<{ seq: number; data: unknown }>;
  /** A whole page was read: more may follow at once. */
  full: boolean;
  /** The log has ended (a workflow's final event is among what was read): the stream ends after the items. */
  ended: boolean;
}

export interface LogStreamOptions {
  /** The last sequence the client has; the stream sends what follows. */
  afterSeq: number;
  /** The page read before the stream opened (answering 403, 404 before any byte was sent). */
  first: LogPage;
  readAfter(afterSeq: number): Promise<LogPage>;
  /** Registers `wake` for the notices of the log; returns the function that stops listening. */
  listen(wake: (seq: number | null) => void): () => void;
  heartbeatMs: number;
  onError(error: unknown): void;
}

/**
 * Sends a log as it grows: a page, then the next once the socket drained it, and when the log has
 * nothing more, waits for a notice (or the heartbeat, which reads again: a missed notice costs only
 * time). Every read starts after the last sequence sent, so nothing is sent twice or skipped.
 * Resolves when the log ended, the client left, the stream was closed or a read failed (the client
 * reconnects with Last-Event-ID).
 */
export async function runLogStream(response: SseResponse, options: LogStreamOptions): Promise<void> {
  let afterSeq = options.afterSeq;
  let wanted = false;
  let wake: (() => void) | null = null;
  const nudge = () => {
    wanted = true;
    wake?.();
  };
  const unlisten = options.listen((seq) => {
    if (seq === null || seq > afterSeq) nudge();
  });
  const heartbeat = setInterval(() => {
    // A stream waiting for its socket to drain has written enough to show it is alive.
    if (!response.backedUp) response.comment('heartbeat');
    nudge();
  }, options.heartbeatMs);
  try {
    let page: LogPage | null = options.first;
    while (!response.closed) {
      if (page === null) {
        if (!wanted) {
          await response.until((done) => (wake = done));
          wake = null;
          continue;
        }
        wanted = false;
        // A stream catching up reads page after page: other requests are answered between them.
        await nextTurn();
        page = await options.readAfter(afterSeq);
      }
      for (const item of page.items) {
        response.event(item.seq, item.data);
        afterSeq = item.seq;
      }
      if (page.ended) break;
      if (page.full) wanted = true;
      page = null;
      // A slow client: read no further until what was written has gone out.
      await response.drained();
    }
  } catch (error) {
    if (!response.closed) options.onError(error);
  } finally {
    clearInterval(heartbeat);
    unlisten();
    response.end();
  }
}
