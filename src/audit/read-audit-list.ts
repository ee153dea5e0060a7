import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AuditChainRepository, AuditQuery, AuditRecord } from './audit-chain-store.js';
import { AUDIT_LIST_SLICE } from './list-limits.js';

/**
 * A list read AUDIT_LIST_SLICE records at a time, newest first, the event loop free before each
 * slice: the records one query for `query.limit` would return, as of the first slice (records
 * appended meanwhile have higher seqs, and each slice after the first reads below the last seq).
 */
export async function readAuditList(records: Pick<AuditChainRepository, 'list'>, tenantId: string, query: AuditQuery): Promise<AuditRecord[]> {
  const read: AuditRecord[] = [];
  let before = query.before;
  while (read.length < query.limit) {
    await nextTurn();
    const limit = Math.min(AUDIT_LIST_SLICE, query.limit - read.length);
    const slice = await records.list(tenantId, { ...query, limit, ...(before === undefined ? {} : { before }) });
    read.push(...slice);
    if (slice.length < limit) break;
    before = slice[slice.length - 1]!.seq;
  }
  return read;
}
