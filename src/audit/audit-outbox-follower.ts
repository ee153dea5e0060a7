import type { AuditRecorder } from './audit-recorder.js';
import type { AuditEvent } from './audit-event.js';
import { claimFrom, hasTimeToWrite, type AuditOutboxLease } from './audit-outbox-lease.js';
import type { AuditOutboxRepository, OwedAuditEntry } from './audit-outbox-store.js';
import { findAuditRecord, type AuditRecordSources } from './find-audit-record.js';

/**
 * Writes the audit records that stored entries owe when their own write did not happen (the
 * append failed, or the process stopped after storing the entry). Each log it follows is an audit
 * outbox: every entry is stored owing its record, claimed by the writer that stored it
 * (owed-record-writer.ts); the follower takes over the entries whose claim ended.
 *
 * Per entry: claim it (of concurrent claimers in any process one wins), ask whether the
 * record is already stored (written, then its writer stopped before marking), append it when not —
 * made of what is stored, with the entry's record id — and mark the entry audited. A failure leaves
 * the entry owed under this follower's claim; the next pass after the claim ends tries again.
 */

const DEFAULT_FOLLOW_BATCH_SIZE = 100;

/** A log whose entries owe audit records, as the follower settles it. */
export interface AuditOutbox<Entry> {
  /** Names the log in logs and errors (`registry`, `anomalies`). */
  name: string;
  entries: AuditOutboxRepository<Entry>;
  /** The record an owed entry stands for, made of what is stored; its actor and time are the entry's. */
  recordOf(owed: OwedAuditEntry<Entry>): Promise<AuditEvent>;
}

export interface AuditOutboxFollowerDeps {
  /** The logs to follow (entries of any type: each outbox gets back only the entries it listed). */
  outboxes: readonly AuditOutbox<unknown>[];
  /** Where an owed record may be already: stored, linked or not. */
  auditRecords: AuditRecordSources;
  audit: Pick<AuditRecorder, 'append'>;
  lease: AuditOutboxLease;
  /** Owed entries settled per outbox and pass. Default 100. */
  batchSize?: number;
  now?: () => Date;
  /** A pass over an outbox (owed null) or one entry failed; the entry is tried again once its claim ends. */
  onError?: (error: unknown, outbox: string, owed: OwedAuditEntry<unknown> | null) => void;
  /** The follower settled an entry: `written` false when the record was already in the chain. */
  onSettled?: (outbox: string, owed: OwedAuditEntry<unknown>, written: boolean) => void;
}

export interface FollowPass {
  /** Owed entries whose claim had ended. */
  owed: number;
  /** Records appended. */
  written: number;
  /** Records found in the chain already (their entry only needed its mark). */
  found: number;
  /** Entries another follower claimed first, or left for a later pass. */
  skipped: number;
  failed: number;
}

export interface AuditOutboxFollower {
  /** One pass over the owed entries of every outbox whose claim ended. Rejects only when none can be listed. */
  followOnce(): Promise<FollowPass>;
  /** Runs a pass now, then one `intervalMs` after each pass ends, until stop(). */
  start(intervalMs: number): void;
  /** Ends the schedule; resolves once a running pass is done. */
  stop(): Promise<void>;
}

export function createAuditOutboxFollower(deps: AuditOutboxFollowerDeps): AuditOutboxFollower {
  const { lease, outboxes } = deps;
  const now = deps.now ?? (() => new Date());
  const batchSize = deps.batchSize ?? DEFAULT_FOLLOW_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be a positive integer');

  async function settle(outbox: AuditOutbox<unknown>, owed: OwedAuditEntry<unknown>): Promise<'written' | 'found' | 'skipped'> {
    const at = now();
    const claim = claimFrom(lease, at);
    if (!(await outbox.entries.claimAudit(owed.tenantId, owed.entry, claim, at.toISOString()))) return 'skipped';
    const stored = await findAuditRecord(deps.auditRecords, owed.tenantId, owed.recordId);
    if (stored === null) {
      const event = await outbox.recordOf(owed);
      // As for the writer that stored the entry: a claim too far gone is left for the next pass.
      if (!hasTimeToWrite(lease, claim, now())) return 'skipped';
      await deps.audit.append(owed.tenantId, event, { id: owed.recordId });
    }
    await outbox.entries.markAudited(owed.tenantId, owed.entry, now().toISOString());
    deps.onSettled?.(outbox.name, owed, stored === null);
    return stored === null ? 'written' : 'found';
  }

  async function followOnce(): Promise<FollowPass> {
    const pass: FollowPass = { owed: 0, written: 0, found: 0, skipped: 0, failed: 0 };
    let listed = 0;
    let listError: unknown;
    for (const outbox of outboxes) {
      let owed: OwedAuditEntry<unknown>[];
      try {
        owed = await outbox.entries.owedAudits(now().toISOString(), batchSize);
        listed += 1;
      } catch (error) {
        // One outbox that cannot be listed does not hold the others back.
        listError = error;
        deps.onError?.(error, outbox.name, null);
        continue;
      }
      pass.owed += owed.length;
      // One at a time: owed entries are rare, and the pass must not crowd the API's own store traffic.
      for (const entry of owed) {
        try {
          pass[await settle(outbox, entry)] += 1;
        } catch (error) {
          pass.failed += 1;
          deps.onError?.(error, outbox.name, entry);
        }
      }
    }
    if (listed === 0 && outboxes.length > 0) throw listError;
    return pass;
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let started = false;
  let stopped = false;

  function runPass(intervalMs: number): void {
    // Listing failures were reported per outbox already.
    running = followOnce().then(
      () => undefined,
      () => undefined,
    );
    void running.then(() => {
      running = undefined;
      if (stopped) return;
      timer = setTimeout(() => runPass(intervalMs), intervalMs);
      timer.unref();
    });
  }

  return {
    followOnce,

    start(intervalMs) {
      if (!Number.isFinite(intervalMs) || intervalMs < 1) throw new RangeError('intervalMs must be at least 1');
      if (started) throw new Error('the audit outbox follower is already started');
      started = true;
      runPass(intervalMs);
    },

    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
