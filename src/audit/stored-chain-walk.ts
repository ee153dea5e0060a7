import type { ChainPageSource } from './audit-chain-store.js';
import { brokenLink, type ChainPosition, type PageCheck } from './chain-page-check.js';
import type { StoredPageCheck } from './stored-page-check.js';

/** A page for a thread to read from the store itself and check (checkStoredPage). */
export interface StoredPageTask {
  source: ChainPageSource;
  tenantId: string;
  fromSeq: number;
  limit: number;
}

export interface StoredPageReads {
  /** checkStoredPage on a thread with a reader of its own: no record crosses between threads. */
  readAndCheck(task: StoredPageTask): Promise<StoredPageCheck>;
  /** Threads the pages are checked on; a walk keeps two pages per thread in flight. */
  threads: number;
}

export interface StoredChainWalkOptions {
  pageSize: number;
  reads: StoredPageReads;
  /** Called after each full page found intact, with the last record reached. */
  onPage?: (reached: ChainPosition) => void;
}

/** A page's check finished with the hash of the record before it, which the walk carried. */
function joinStoredPage(before: ChainPosition, page: StoredPageCheck): PageCheck {
  if (page.link !== undefined && page.link !== before.hash) return { reached: before, problem: brokenLink(before.seq + 1) };
  return { reached: page.reached.seq === before.seq ? before : page.reached, problem: page.problem };
}

/**
 * walkChain with the pages read and checked on threads: pages are handed out by seq range ahead
 * of the walk (while one is checked, the next are read) and joined here in order, each with the
 * hash of the record before it, so the answer is walkChain's. A page is handed out from where the
 * one before it ends when whole and intact; any other page ends the walk there, and the answers of
 * those handed out past it are not used (a few ms at most). A walk begins with a page per thread in flight and
 * adds one with each whole page, up to two per thread.
 */
export async function walkStoredChain(source: ChainPageSource, tenantId: string, from: ChainPosition, options: StoredChainWalkOptions): Promise<PageCheck> {
  const { pageSize, reads } = options;
  const inFlight: Array<Promise<StoredPageCheck>> = [];
  let nextSeq = from.seq + 1;
  let reached = from;
  let wholePages = 0;
  try {
    for (;;) {
      // A page per thread at first (so the threads start together), one more with each whole page.
      while (inFlight.length < Math.min(2 * reads.threads, reads.threads + wholePages)) {
        inFlight.push(reads.readAndCheck({ source, tenantId, fromSeq: nextSeq, limit: pageSize }));
        nextSeq += pageSize;
      }
      const page = await inFlight.shift()!;
      const checked = joinStoredPage(reached, page);
      reached = checked.reached;
      if (checked.problem !== null || page.read < pageSize) return checked;
      wholePages += 1;
      options.onPage?.(reached);
    }
  } finally {
    // Pages handed out past the end of the walk: their answers, failures included, are of no use,
    // but the walk ends only once they are in, so it leaves nothing running on the threads (closing
    // the threads while a page runs there is what a stopping process must not race with).
    await Promise.allSettled(inFlight);
  }
}
