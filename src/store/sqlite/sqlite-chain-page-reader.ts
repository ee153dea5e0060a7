import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { ChainPageReader, ChainPageSource } from '../../audit/audit-chain-store.js';
import { prepareChainPage, toAuditRecord } from './sqlite-audit-rows.js';

const SQLITE = 'sqlite';

/** Where a thread opens its own reader of this connection's chain; null for an in-memory database, which only its connection sees. */
export function sqlitePageSource(db: Database): ChainPageSource | null {
  return db.memory ? null : { store: SQLITE, location: resolve(db.name) };
}

export function isSqlitePageSource(source: ChainPageSource): boolean {
  return source.store === SQLITE;
}

/** Which file a path names now: a file put in the place of another is another. */
function fileAt(path: string): string {
  const { dev, ino } = statSync(path);
  return `${dev}:${ino}`;
}

function openReadOnly(path: string) {
  const file = fileAt(path);
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    return { file, db, page: prepareChainPage(db) };
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * A read-only connection of the thread's own to the chain's file. Under WAL it reads beside the
 * process's writer without waiting for it; records are never changed, so pages read by different
 * threads at different moments fit together. A thread outlives the stores it reads (it keeps its
 * readers): a file replaced at the same path is opened anew, not read through the old connection.
 */
export function openSqliteChainPageReader(source: ChainPageSource): ChainPageReader {
  let opened = openReadOnly(source.location);
  return {
    page(tenantId, fromSeq, limit) {
      if (fileAt(source.location) !== opened.file) {
        opened.db.close();
        opened = openReadOnly(source.location);
      }
      return opened.page(tenantId, fromSeq, limit);
    },
    record: toAuditRecord,
    close: () => opened.db.close(),
  };
}
