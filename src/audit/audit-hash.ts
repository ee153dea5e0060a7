import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditRecord } from './audit-chain-store.js';

/** Everything a record's hash covers: the record without `hash`. */
export type AuditRecordContent = Omit<AuditRecord, 'hash'>;

/**
 * RFC 8785 canonical JSON of the hashed fields. Fields are picked by name so that anything else
 * attached to a record object (a storage key, say) can never leak into the hash.
 */
export function canonicalAuditContent(record: AuditRecordContent): string {
  const content = {
    id: record.id,
    seq: record.seq,
    eventType: record.eventType,
    policyModule: record.policyModule,
    policyFunction: record.policyFunction,
    actorId: record.actorId,
    occurredAt: record.occurredAt,
    payload: record.payload,
    previousHash: record.previousHash,
  };
  const text = canonicalize(content);
  if (text === undefined) throw new TypeError('audit record content has no JSON form');
  return text;
}

/** Lowercase hex SHA-256 of the UTF-8 canonical content. */
export function computeAuditHash(record: AuditRecordContent): string {
  return createHash('sha256').update(canonicalAuditContent(record), 'utf8').digest('hex');
}
