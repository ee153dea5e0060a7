// Piscina thread entry, loaded by path from dist/workers/audit-chain-thread.js (see src/audit/chain-page-threads.ts).
import type { AuditRecord, ChainPageReader, ChainPageSource } from '../src/audit/audit-chain-store.js';
import { checkChainPage, type ChainPosition, type PageCheck } from '../src/audit/chain-page-check.js';
import type { StoredPageTask } from '../src/audit/stored-chain-walk.js';
import { checkStoredPage, type StoredPageCheck } from '../src/audit/stored-page-check.js';
// The reader alone, not the store's index: a thread has no use for the MongoDB driver.
import { openChainPageReader } from '../src/store/chain-page-reader.js';

/** Readers kept open by this thread, the least recently used closed beyond this many (tests open many stores). */
const MAX_READERS = 4;
const readers = new Map<string, ChainPageReader>();

function readerOf(source: ChainPageSource): ChainPageReader {
  const key = `${source.store}\n${source.location}`;
  let reader = readers.get(key);
  if (reader !== undefined) readers.delete(key);
  else reader = openChainPageReader(source);
  readers.set(key, reader);
  for (const [oldKey, old] of readers) {
    if (readers.size <= MAX_READERS) break;
    readers.delete(oldKey);
    old.close();
  }
  return reader;
}

export default function checkPage(task: { records: AuditRecord[]; from: ChainPosition }): PageCheck {
  return checkChainPage(task.records, task.from);
}

export function readAndCheck(task: StoredPageTask): StoredPageCheck {
  return checkStoredPage(readerOf(task.source), task.tenantId, task.fromSeq, task.limit);
}
