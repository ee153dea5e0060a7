import type { ChainPageReader, ChainPageSource } from '../audit/audit-chain-store.js';
import { isSqlitePageSource, openSqliteChainPageReader } from './sqlite/sqlite-chain-page-reader.js';

/** A thread's own reader of the chain a store's `pageSource()` named (only SQLite names one). */
export function openChainPageReader(source: ChainPageSource): ChainPageReader {
  if (isSqlitePageSource(source)) return openSqliteChainPageReader(source);
  throw new TypeError(`no store reads a chain page source of \`${source.store}\``);
}
