import type { AuditRecord } from '../audit/audit-chain-store.js';
import type { LinkerLease, UnlinkedAuditEntry } from '../audit/audit-link-store.js';
import { StoreArgumentError } from './store-argument-error.js';
import { assertBatchLinked, assertRecordId, assertTenantId, normaliseInstant } from './store-rules.js';

/** The checks both adapters make, so they refuse exactly the same input. */

export function assertUnlinkedEntries(entries: readonly UnlinkedAuditEntry[]): void {
  for (const { tenantId, record } of entries) {
    assertTenantId(tenantId);
    assertRecordId(record.id);
    if (!/^[0-9a-f]{64}$/.test(record.contentHash)) throw new StoreArgumentError('contentHash must be 64 lowercase hex digits');
  }
}

export function assertLease(lease: LinkerLease): void {
  if (typeof lease.holder !== 'string' || lease.holder.length === 0) throw new StoreArgumentError('a lease needs a holder');
  if (!Number.isSafeInteger(lease.epoch) || lease.epoch < 1) throw new StoreArgumentError('a lease epoch must be a positive integer');
}

export function leaseTimes(until: string, now: string): { until: string; now: string } {
  return { until: normaliseInstant(until, 'until'), now: normaliseInstant(now, 'now') };
}

/**
 * A batch to link must be consecutive and linked within itself, each record once; its first record
 * names the head it was built on.
 */
export function assertLinkBatch(tenantId: string, records: readonly AuditRecord[]): void {
  if (records.length === 0) throw new StoreArgumentError('a link needs at least one record');
  assertBatchLinked(tenantId, records);
  if (new Set(records.map((r) => r.id)).size !== records.length) throw new StoreArgumentError('a link holds each record id once');
}
