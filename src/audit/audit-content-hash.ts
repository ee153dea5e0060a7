import { createHash } from 'node:crypto';
import type { NormalisedAuditEvent } from './audit-event.js';
import { canonicalJson } from './canonical-json.js';

/** What a receipt names: a record's id and the hash of its content, which no later step changes. */
export interface AuditReceipt {
  id: string;
  contentHash: string;
}

/**
 * Lowercase hex SHA-256 of the RFC 8785 canonical JSON of the record's content,
 * `{id, eventType, policyModule, policyFunction, actorId, occurredAt, payload}`: known when the
 * record is stored, before the linker gives it a seq, so an answer can carry it.
 */
export function computeAuditContentHash(id: string, event: NormalisedAuditEvent): string {
  // Listed in canonical order, so only the payload may need sorting.
  const text = canonicalJson({
    actorId: event.actorId,
    eventType: event.eventType,
    id,
    occurredAt: event.occurredAt,
    payload: event.payload,
    policyFunction: event.policyFunction,
    policyModule: event.policyModule,
  });
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
