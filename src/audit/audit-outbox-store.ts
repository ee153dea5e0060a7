/**
 * Who may write an owed audit record, and until when (ISO 8601). Past `until` the holder is
 * presumed gone and another writer may take the claim over.
 */
export interface AuditClaim {
  owner: string;
  until: string;
}

/**
 * Stored in the same insert as an entry of a log that is an audit outbox (a deployed version, a
 * rollback activation, an anomaly status transition): the audit record the entry owes (written
 * with `recordId`) and the claim of the writer that stored it.
 */
export interface OwedAudit {
  recordId: string;
  claim: AuditClaim;
}

/** An entry whose audit record is still owed, with its current claim. */
export interface OwedAuditEntry<Entry> {
  tenantId: string;
  entry: Entry;
  recordId: string;
  claim: AuditClaim;
}

/**
 * A log whose entries are stored owing their audit records: the log is the outbox of its records.
 * Entries stored without an owed record owe nothing; once marked audited, an entry never owes again.
 */
export interface AuditOutboxRepository<Entry> {
  /**
   * Entries of every tenant whose audit record is owed and whose claim ended before `now`, the
   * longest-ended claim first, at most `limit`. One of the few reads across tenants: the follower
   * that writes owed records serves them all.
   */
  owedAudits(now: string, limit: number): Promise<OwedAuditEntry<Entry>[]>;
  /**
   * Gives the entry's claim to `claim.owner` until `claim.until` when its record is still owed and
   * its current claim ended before `now`. Of concurrent claimers (any connection, any process) at
   * most one gets true.
   */
  claimAudit(tenantId: string, entry: Entry, claim: AuditClaim, now: string): Promise<boolean>;
  /**
   * Records that the entry's audit record is in the chain; idempotent, and a no-op for an entry
   * that owes nothing.
   */
  markAudited(tenantId: string, entry: Entry, at: string): Promise<void>;
}
