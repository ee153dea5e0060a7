import { createHash } from 'node:crypto';
import type { AuditRecord } from './audit-chain-store.js';
import { canonicalJson } from './canonical-json.js';

/** Everything a record's hash covers: the record without `hash`. */
export type AuditRecordContent = Omit<AuditRecord, 'hash'>;

/**
 * RFC 8785 canonical JSON of the hashed fields. Fields are picked by name so that anything else
 * attached to a record object (a storage key, say) can never leak into the hash; they are listed
 * in canonical order, so only the payload may need sorting.
 */
export function canonicalAuditContent(record: AuditRecordContent): string {
  return canonicalJson({
    actorId: record.actorId,
    eventType: record.eventType,
    id: record.id,
    occurredAt: record.occurredAt,
    payload: record.payload,
    policyFunction: record.policyFunction,
    policyModule: record.policyModule,
    previousHash: record.previousHash,
    seq: record.seq,
  });
}

/** Lowercase hex SHA-256 of the UTF-8 canonical content. */
export function computeAuditHash(record: AuditRecordContent): string {
  return createHash('sha256').update(canonicalAuditContent(record), 'utf8').digest('hex');
}
