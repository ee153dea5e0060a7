import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { NormalisedAuditEvent } from './audit-event.js';

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
  const text = canonicalize({
    id,
    eventType: event.eventType,
    policyModule: event.policyModule,
    policyFunction: event.policyFunction,
    actorId: event.actorId,
    occurredAt: event.occurredAt,
    payload: event.payload,
  });
  if (text === undefined) throw new TypeError('audit record content has no JSON form');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
