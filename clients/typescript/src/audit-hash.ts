import { canonicalJson } from './canonical-json.js';
import { sha256Hex } from './web-crypto.js';

/** A receipt: the audit record an answer names, by id and the hash of its content. */
export interface AuditReceipt {
  id: string;
  contentHash: string;
}

/** What a record's content hash covers (everything but its place in the chain). */
export interface AuditContent {
  eventType: string;
  policyModule: string | null;
  policyFunction: string | null;
  actorId: string;
  occurredAt: string;
  payload: Record<string, unknown>;
}

/**
 * Lowercase hex SHA-256 of the RFC 8785 canonical JSON of
 * `{id, eventType, policyModule, policyFunction, actorId, occurredAt, payload}`: what a receipt's
 * `contentHash` is.
 */
export function computeAuditContentHash(id: string, content: AuditContent): Promise<string> {
  const { actorId, eventType, occurredAt, payload, policyFunction, policyModule } = content;
  return sha256Hex(canonicalJson({ actorId, eventType, id, occurredAt, payload, policyFunction, policyModule }));
}

/** Lowercase hex SHA-256 of the canonical JSON of a linked record without its `hash`: what its `hash` must be. */
export function computeAuditHash(record: AuditContent & { id: string; seq: number; previousHash: string }): Promise<string> {
  const { actorId, eventType, id, occurredAt, payload, policyFunction, policyModule, previousHash, seq } = record;
  return sha256Hex(canonicalJson({ actorId, eventType, id, occurredAt, payload, policyFunction, policyModule, previousHash, seq }));
}

const AUDIT_RECORD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The shape of every audit record id: a UUID in lowercase hex. */
export function isAuditRecordId(value: string): boolean {
  return AUDIT_RECORD_ID.test(value);
}
