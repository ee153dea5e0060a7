import { Piscina } from 'piscina';
import { resolveThreadFile } from '../engine/thread-file.js';
import type { PageChecker } from './verify-chain.js';

export interface ChainPageThreads {
  /** checkChainPage on a thread: the hashing never runs on the caller's event loop. */
  check: PageChecker;
  close(): Promise<void>;
}

/** How long an unused thread stays before it ends (the next verification starts a new one). */
const IDLE_MS = 60_000;

/**
 * Threads that hash pages of audit records for the API's chain verifications. They start on first
 * use and end when idle, so a process that never verifies a chain pays nothing for them.
 */
export function createChainPageThreads(threads: number, threadFile: string = resolveThreadFile('audit-chain-thread')): ChainPageThreads {
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`);
  const piscina = new Piscina({ filename: threadFile, minThreads: 0, maxThreads: threads, idleTimeout: IDLE_MS });
  return {
    check: (records, from) => piscina.run({ records, from }),
    close: () => piscina.close(),
  };
}
