import type { ChainPageReader } from '../../src/audit/index.js';
import { checkStoredPage } from '../../src/audit/stored-page-check.js';
import type { StoredPageReads } from '../../src/audit/stored-chain-walk.js';
import { openChainPageReader } from '../../src/store/chain-page-reader.js';

/**
 * What the API's threads do for walkStoredChain (workers/audit-chain-thread.ts), on the caller's
 * thread and from the TypeScript sources: a reader of its own per store, each page read and checked
 * by checkStoredPage. Close it to close its readers.
 */
export function inProcessStoredPageReads(threads = 2): StoredPageReads & { close(): void } {
  const readers = new Map<string, ChainPageReader>();
  return {
    threads,
    async readAndCheck(task) {
      let reader = readers.get(task.source.location);
      if (reader === undefined) {
        reader = openChainPageReader(task.source);
        readers.set(task.source.location, reader);
      }
      return checkStoredPage(reader, task.tenantId, task.fromSeq, task.limit);
    },
    close() {
      for (const reader of readers.values()) reader.close();
      readers.clear();
    },
  };
}
