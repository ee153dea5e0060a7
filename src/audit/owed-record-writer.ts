import type { AuditRecorder } from './audit-recorder.js';
import type { AuditEvent } from './audit-event.js';
import { claimFrom, hasTimeToWrite, type AuditOutboxLease } from './audit-outbox-lease.js';
import type { AuditClaim, AuditOutboxRepository, OwedAudit } from './audit-outbox-store.js';

/**
 * The first attempt at an owed record, by the process that just stored the entry owing it (a
 * deploy, a rollback, an anomaly status change): it appends the record with the entry's record id
 * under the claim the entry was stored with, then marks the entry audited. Whatever it does not
 * finish, the audit outbox follower does once the claim ends (audit-outbox-follower.ts).
 */
export interface OwedRecordWriter {
  /** This process's claim on the record of an entry stored at `at`: it goes into the entry's insert. */
  claim(at: Date): AuditClaim;
  /**
   * Appends the record and marks the entry. A failed append rejects (the caller's request fails)
   * and leaves the entry owed; a claim too far gone to write safely is left to the follower; a
   * failed mark only costs `onMarkError` (the follower finds the record by its id and marks it).
   */
  write<Entry>(log: Pick<AuditOutboxRepository<Entry>, 'markAudited'>, tenantId: string, entry: Entry, owed: OwedAudit, event: AuditEvent): Promise<void>;
}

export interface OwedRecordWriterDeps {
  audit: Pick<AuditRecorder, 'append'>;
  lease: AuditOutboxLease;
  now?: () => Date;
  /** A record was written but marking its entry failed: harmless, worth a log line. */
  onMarkError?: (error: unknown) => void;
}

export function createOwedRecordWriter(deps: OwedRecordWriterDeps): OwedRecordWriter {
  const now = deps.now ?? (() => new Date());
  return {
    claim(at) {
      return claimFrom(deps.lease, at);
    },

    async write(log, tenantId, entry, owed, event) {
      if (!hasTimeToWrite(deps.lease, owed.claim, now())) return;
      await deps.audit.append(tenantId, event, { id: owed.recordId });
      try {
        await log.markAudited(tenantId, entry, now().toISOString());
      } catch (error) {
        deps.onMarkError?.(error);
      }
    },
  };
}

