import { AuditRecordCorruptError } from './audit-chain-errors.js';
import type { AuditRecord, ChainPageReader } from './audit-chain-store.js';
import { canonicalAuditContent, hashAuditContent, storedAuditContent } from './audit-hash.js';
import { checkChainLinks, unreadableRecord, type ChainProblem, type PageCheck } from './chain-page-check.js';

/**
 * A page checked where it was read, before the hash of the record ahead of it is known: the walk
 * that carries that hash finishes the check (joinStoredPage).
 */
export interface StoredPageCheck extends PageCheck {
  /** Records read; fewer than asked for means the chain ended there. */
  read: number;
  /**
   * The first record's previousHash, taken as its link to the record before it when the checks
   * that come ahead of that link passed (readable, the expected seq); absent when a problem came first.
   */
  link?: string;
}

/**
 * Reads up to `limit` of the tenant's records from `fromSeq` on and checks them as walkChain and
 * checkChainPage would once given the record before `fromSeq`: the same first problem and the same
 * last record intact. A record's content text is written around its stored payload where that is
 * provably canonical (storedAuditContent), else the record is read and written as `scan` and
 * checkChainPage do; as with `scan`, reading stops at a record that cannot be read, which is the
 * problem unless one comes before it.
 */
export function checkStoredPage(reader: ChainPageReader, tenantId: string, fromSeq: number, limit: number): StoredPageCheck {
  const stored = reader.page(tenantId, fromSeq, limit);
  const contents: Array<string | AuditRecord> = [];
  let unreadable: ChainProblem | null = null;
  for (const record of stored) {
    const text = storedAuditContent(record);
    if (text !== undefined) {
      contents.push(text);
      continue;
    }
    try {
      contents.push(reader.record(tenantId, record));
    } catch (error) {
      if (!(error instanceof AuditRecordCorruptError)) throw error;
      unreadable = unreadableRecord(error);
      break;
    }
  }
  const readable = contents.length === stored.length ? stored : stored.slice(0, contents.length);
  const first = readable[0];
  const link = first !== undefined && first.seq === fromSeq ? first.previousHash : undefined;
  const checked = checkChainLinks(readable, { seq: fromSeq - 1, hash: link ?? '' }, (_record, index) => {
    const content = contents[index]!;
    return hashAuditContent(typeof content === 'string' ? content : canonicalAuditContent(content));
  });
  return { read: stored.length, ...(link !== undefined ? { link } : {}), reached: checked.reached, problem: checked.problem ?? unreadable };
}
