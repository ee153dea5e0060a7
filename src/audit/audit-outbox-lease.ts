import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { AuditClaim } from './audit-outbox-store.js';

/**
 * How long the writer that stored an entry owing its audit record (a deploy, a rollback, an
 * anomaly status change) has to write the record before the follower (in any process) may take
 * the claim over. Long against an append (milliseconds), so a live writer is never overtaken;
 * short enough that a lost record follows within about a minute.
 */
export const DEFAULT_AUDIT_OUTBOX_LEASE_MS = 60_000;

/** Who this process claims owed audit records as, and for how long. */
export interface AuditOutboxLease {
  owner: string;
  leaseMs: number;
}

/** A lease for this process: the owner names the host and pid, which is what an operator looks for. */
export function newAuditOutboxLease(leaseMs: number = DEFAULT_AUDIT_OUTBOX_LEASE_MS): AuditOutboxLease {
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 2) throw new RangeError('leaseMs must be a whole number of at least 2');
  return { owner: `${hostname().slice(0, 64)}:${process.pid}:${randomUUID().slice(0, 8)}`, leaseMs };
}

export function claimFrom(lease: AuditOutboxLease, at: Date): AuditClaim {
  return { owner: lease.owner, until: new Date(at.getTime() + lease.leaseMs).toISOString() };
}

/**
 * Whether a claim still leaves time to write its record: until half its lease has passed. A writer
 * past that leaves the record to the follower, so the remaining half covers an append in flight
 * and the two never write it both.
 */
export function hasTimeToWrite(lease: AuditOutboxLease, claim: AuditClaim, now: Date): boolean {
  return now.getTime() < Date.parse(claim.until) - lease.leaseMs / 2;
}
