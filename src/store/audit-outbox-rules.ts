import type { AuditClaim, AuditOutboxRepository, OwedAudit, OwedAuditEntry } from '../audit/audit-outbox-store.js';
import { StoreArgumentError } from './store-argument-error.js';
import { assertTenantId, compareText, normaliseInstant } from './store-rules.js';

/**
 * Checks, order and methods shared by every log that is an audit outbox (AuditOutboxRepository),
 * on both adapters, so they refuse the same input and list owed entries in the same order.
 */

const MAX_AUDIT_ID_LENGTH = 128;

function assertShortText(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_AUDIT_ID_LENGTH) {
    throw new StoreArgumentError(`${field} must be a string of 1 to ${MAX_AUDIT_ID_LENGTH} characters`);
  }
}

/** A claim in stored form (its instant normalised, so claims compare as text). */
function normaliseAuditClaim(claim: AuditClaim): AuditClaim {
  assertShortText(claim?.owner, 'claim owner');
  return { owner: claim.owner, until: normaliseInstant(claim.until, 'claim until') };
}

export function normaliseOwedAudit(owed: OwedAudit): OwedAudit {
  assertShortText(owed?.recordId, 'recordId');
  return { recordId: owed.recordId, claim: normaliseAuditClaim(owed.claim) };
}

/** `owedAudits(now, limit)`'s arguments; returns `now` in stored form. */
function normaliseOwedQuery(now: string, limit: number): string {
  const before = normaliseInstant(now, 'now');
  if (!Number.isSafeInteger(limit) || limit < 1) throw new StoreArgumentError('limit must be a positive integer');
  return before;
}

/** Owed entries, the longest-ended claim first (ties: tenant, then the log's own order of entries). */
function compareOwedAudits<Entry>(compareEntries: (a: Entry, b: Entry) => number) {
  return (a: OwedAuditEntry<Entry>, b: OwedAuditEntry<Entry>): number =>
    compareText(a.claim.until, b.claim.until) || compareText(a.tenantId, b.tenantId) || compareEntries(a.entry, b.entry);
}

/**
 * Where an adapter keeps the entries of one kind (a table, a collection): sqlite-audit-outbox.ts
 * and mongo-audit-outbox.ts. `owed` may return more than `limit`, in any order.
 */
export interface AuditOutboxPart<Entry> {
  owed(before: string, limit: number): OwedAuditEntry<Entry>[] | Promise<OwedAuditEntry<Entry>[]>;
  claim(tenantId: string, entry: Entry, claim: AuditClaim, now: string): boolean | Promise<boolean>;
  mark(tenantId: string, entry: Entry, at: string): void | Promise<void>;
}

/** The outbox methods of a log whose entries of each kind are kept in their own part. */
export function auditOutboxOfParts<Kind extends string, Entry extends { kind: Kind }>(
  parts: Record<Kind, AuditOutboxPart<Entry>>,
  entries: { assert(entry: Entry): void; compare(a: Entry, b: Entry): number },
): AuditOutboxRepository<Entry> {
  const all = Object.values<AuditOutboxPart<Entry>>(parts);
  return {
    async owedAudits(now, limit) {
      const before = normaliseOwedQuery(now, limit);
      const owed = (await Promise.all(all.map((part) => part.owed(before, limit)))).flat();
      return owed.sort(compareOwedAudits(entries.compare)).slice(0, limit);
    },

    async claimAudit(tenantId, entry, claim, now) {
      assertTenantId(tenantId);
      entries.assert(entry);
      return parts[entry.kind].claim(tenantId, entry, normaliseAuditClaim(claim), normaliseInstant(now, 'now'));
    },

    async markAudited(tenantId, entry, at) {
      assertTenantId(tenantId);
      entries.assert(entry);
      await parts[entry.kind].mark(tenantId, entry, normaliseInstant(at, 'at'));
    },
  };
}
