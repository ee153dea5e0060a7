import type { NormalisedAuditEvent } from './audit-event.js';
import { hashAuditContent } from './audit-hash.js';
import { canonicalJson } from './canonical-json.js';
import { recordTextAround } from './record-text.js';

/** What a receipt names: a record's id and the hash of its content, which no later step changes. */
export interface AuditReceipt {
  id: string;
  contentHash: string;
}

/**
 * Lowercase hex SHA-256 of the RFC 8785 canonical JSON of the record's content,
 * `{id, eventType, policyModule, policyFunction, actorId, occurredAt, payload}`: known when the
 * record is stored, before the linker gives it a seq, so an answer can carry it. `payloadText`: the
 * payload's canonical JSON when the caller has it (the recorder made it once), not written again.
 */
export function computeAuditContentHash(id: string, event: NormalisedAuditEvent, payloadText?: string): string {
  // Listed in canonical order, so only the payload may need sorting.
  const content = {
    actorId: event.actorId,
    eventType: event.eventType,
    id,
    occurredAt: event.occurredAt,
    payload: event.payload,
    policyFunction: event.policyFunction,
    policyModule: event.policyModule,
  };
  const text = (payloadText === undefined ? undefined : recordTextAround(content, payloadText)) ?? canonicalJson(content);
  return hashAuditContent(text);
}
