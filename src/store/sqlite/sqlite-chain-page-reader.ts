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

/**
 * A read-only connection of the thread's own to the chain's file. Under WAL it reads beside the
 * process's writer without waiting for it; records are never changed, so pages read by different
 * threads at different moments fit together.
 */
export function openSqliteChainPageReader(source: ChainPageSource): ChainPageReader {
  const db = new BetterSqlite3(source.location, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    return { page: prepareChainPage(db), record: toAuditRecord, close: () => db.close() };
  } catch (error) {
    db.close();
    throw error;
  }
}
