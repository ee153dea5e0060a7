import { Piscina } from 'piscina';
import { resolveThreadFile } from '../engine/thread-file.js';
import type { StoredPageReads } from './stored-chain-walk.js';
import type { PageChecker } from './verify-chain.js';

export interface ChainPageThreads extends StoredPageReads {
  /** checkChainPage on a thread: the hashing never runs on the caller's event loop. */
  check: PageChecker;
  close(): Promise<void>;
}

/** How long an unused thread stays before it ends (the next verification starts a new one). */
const IDLE_MS = 60_000;

/**
 * Threads that check pages of audit records for the API's chain verifications: pages read here
 * (`check`), or read by the thread itself from the store (`readAndCheck`, where the store names a
 * source threads can read). They start on first use and end when idle, so a process that never
 * verifies a chain pays nothing for them.
 */
export function createChainPageThreads(threads: number, threadFile: string = resolveThreadFile('audit-chain-thread')): ChainPageThreads {
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError(`threads must be a positive integer, got ${threads}`);
  const piscina = new Piscina({ filename: threadFile, minThreads: 0, maxThreads: threads, idleTimeout: IDLE_MS });
  // A thread dying between tasks surfaces here, and Piscina replaces it; without a listener the
  // event would end the process. A task's own failure reaches its walk, which reports it.
  piscina.on('error', () => {});
  return {
    check: (records, from) => piscina.run({ records, from }),
    readAndCheck: (task) => piscina.run(task, { name: 'readAndCheck' }),
    threads,
    close: () => piscina.close(),
  };
}
