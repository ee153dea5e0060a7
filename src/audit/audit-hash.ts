import { hash } from 'node:crypto';
// The rule's own file, not the kernel's index: verification threads load this, and the index brings zod (half a thread's start).
import { hasLoneSurrogate } from '../kernel/well-formed-text.js';
import type { AuditRecord, StoredAuditRecord } from './audit-chain-store.js';
import { canonicalJson } from './canonical-json.js';
import { isCanonicalObjectText } from './canonical-json-text.js';

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

/** Text JSON.stringify writes as it is between quotes: no quote, backslash, control character or surrogate. */
const VERBATIM = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A string field as canonicalJson writes it, or undefined where it would refuse or write something else. */
function textField(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Ids, names, timestamps and hashes are verbatim: quoting them is a third of the cost of JSON.stringify.
  if (VERBATIM.test(value)) return `"${value}"`;
  return hasLoneSurrogate(value) ? undefined : JSON.stringify(value);
}

function optionalTextField(value: unknown): string | undefined {
  return value === null ? 'null' : textField(value);
}

/**
 * canonicalAuditContent of the record a stored one reads as, written around the stored payload text
 * without reading it, when that text is provably canonical and every other field is of its schema
 * type; otherwise undefined, and the record is read and written the usual way. Identical text
 * whenever it answers (src/audit/__tests__/stored-content.test.ts), at a fraction of the cost.
 */
export function storedAuditContent(stored: StoredAuditRecord): string | undefined {
  const { payload, seq } = stored;
  if (typeof payload !== 'string' || !isCanonicalObjectText(payload) || typeof seq !== 'number' || !Number.isFinite(seq)) return undefined;
  const actorId = textField(stored.actorId);
  const eventType = textField(stored.eventType);
  const id = textField(stored.id);
  const occurredAt = textField(stored.occurredAt);
  const policyFunction = optionalTextField(stored.policyFunction);
  const policyModule = optionalTextField(stored.policyModule);
  const previousHash = textField(stored.previousHash);
  if (actorId === undefined || eventType === undefined || id === undefined || occurredAt === undefined) return undefined;
  if (policyFunction === undefined || policyModule === undefined || previousHash === undefined) return undefined;
  return `{"actorId":${actorId},"eventType":${eventType},"id":${id},"occurredAt":${occurredAt},"payload":${payload},"policyFunction":${policyFunction},"policyModule":${policyModule},"previousHash":${previousHash},"seq":${JSON.stringify(seq)}}`;
}
