import { StoreArgumentError } from './errors.js';
import type { AuditClaim, OwedAudit, OwedAuditEntry } from './ports.js';
import { compareText, normaliseInstant } from './store-rules.js';

/**
 * Checks and order shared by every log that is an audit outbox (AuditOutboxRepository), on both
 * adapters, so they refuse the same input and list owed entries in the same order.
 */

const MAX_AUDIT_ID_LENGTH = 128;

function assertShortText(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_AUDIT_ID_LENGTH) {
    throw new StoreArgumentError(`${field} must be a string of 1 to ${MAX_AUDIT_ID_LENGTH} characters`);
  }
}

/** A claim in stored form (its instant normalised, so claims compare as text). */
export function normaliseAuditClaim(claim: AuditClaim): AuditClaim {
  assertShortText(claim?.owner, 'claim owner');
  return { owner: claim.owner, until: normaliseInstant(claim.until, 'claim until') };
}

export function normaliseOwedAudit(owed: OwedAudit): OwedAudit {
  assertShortText(owed?.recordId, 'recordId');
  return { recordId: owed.recordId, claim: normaliseAuditClaim(owed.claim) };
}

/** `owedAudits(now, limit)`'s arguments; returns `now` in stored form. */
export function normaliseOwedQuery(now: string, limit: number): string {
  const before = normaliseInstant(now, 'now');
  if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreArgumentError('limit must be a positive integer');
  return before;
}

/** Owed entries, the longest-ended claim first (ties: tenant, then the log's own order of entries). */
export function compareOwedAudits<Entry>(compareEntries: (a: Entry, b: Entry) => number) {
  return (a: OwedAuditEntry<Entry>, b: OwedAuditEntry<Entry>): number =>
    compareText(a.claim.until, b.claim.until) || compareText(a.tenantId, b.tenantId) || compareEntries(a.entry, b.entry);
}
