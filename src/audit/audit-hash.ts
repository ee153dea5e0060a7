import { hash } from 'node:crypto';
import type { AuditRecord, StoredAuditRecord } from './audit-chain-store.js';
import { canonicalJson } from './canonical-json.js';
import { isCanonicalObjectText } from './canonical-json-text.js';
import { recordTextAround } from './record-text.js';

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

/** Lowercase hex SHA-256 of the UTF-8 of a content text (canonicalAuditContent's or storedAuditContent's). */
export function hashAuditContent(content: string): string {
  // The one-shot form: half the time of createHash for a record's few hundred bytes.
  return hash('sha256', content, 'hex');
}

/** Lowercase hex SHA-256 of the UTF-8 canonical content. */
export function computeAuditHash(record: AuditRecordContent): string {
  return hashAuditContent(canonicalAuditContent(record));
}

/**
 * canonicalAuditContent of a record whose payload's canonical text is known (made once at its
 * append): the payload is not written again. Identical text (test/property/canonical-json.test.ts).
 */
export function linkedAuditContent(record: AuditRecordContent, payloadText: string): string {
  return recordTextAround(record, payloadText, record) ?? canonicalAuditContent(record);
}

/**
 * canonicalAuditContent of the record a stored one reads as, written around the stored payload text
 * without reading it, when that text is provably canonical and every other field is of its schema
 * type; otherwise undefined, and the record is read and written the usual way. Identical text
 * whenever it answers (test/property/canonical-json.test.ts), at a fraction of the cost.
 */
export function storedAuditContent(stored: StoredAuditRecord): string | undefined {
  const { payload } = stored;
  if (typeof payload !== 'string' || !isCanonicalObjectText(payload)) return undefined;
  return recordTextAround(stored, payload, stored);
}
