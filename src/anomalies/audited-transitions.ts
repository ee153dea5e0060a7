import { createOwedRecordWriter, newAuditOutboxLease, type AuditRecorder, type AuditOutboxLease } from '../audit/index.js';
import { statusChangedRecordId } from './anomaly-audit-ids.js';
import { statusChangedEvent } from './anomaly-events.js';
import type { AnomalyRepository, AnomalyState, AnomalyTransition } from './anomaly-store.js';

/**
 * Status changes stored owing their ANOMALY_STATUS_CHANGED record, in the same insert: the record
 * is then written at once, and should that fail (or the process stop first) the audit outbox
 * follower writes it from the stored change (anomaly-audit-outbox.ts). Every writer of a status
 * change (triage, the verification job) goes through here.
 */
export interface AuditedTransitions {
  /**
   * Inserts the transition, runs `whenStored` (the caller's step that must follow a stored change
   * whatever becomes of its record), then appends the record. False when its seq was taken
   * (another change won; nothing run or written). Rejects with `whenStored`'s error, else the
   * append's: the change is stored either way, and its record written or owed.
   */
  append(tenantId: string, anomaly: AnomalyState, transition: AnomalyTransition, whenStored?: () => Promise<void>): Promise<boolean>;
}

export interface AuditedTransitionsDeps {
  anomalies: AnomalyRepository;
  audit: Pick<AuditRecorder, 'append'>;
  /** The claim this process stores changes under (default: a new one). */
  auditLease?: AuditOutboxLease;
  /** A record was written but its change not marked: harmless (the follower marks it), worth a log line. */
  onAuditMarkError?: (error: unknown) => void;
  now?: () => Date;
}

export function createAuditedTransitions(deps: AuditedTransitionsDeps): AuditedTransitions {
  const owedRecords = createOwedRecordWriter({
    audit: deps.audit,
    lease: deps.auditLease ?? newAuditOutboxLease(),
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.onAuditMarkError ? { onMarkError: deps.onAuditMarkError } : {}),
  });
  return {
    async append(tenantId, anomaly, transition, whenStored) {
      const { anomalyId, seq } = transition;
      const owed = { recordId: statusChangedRecordId(tenantId, anomalyId, seq), claim: owedRecords.claim(new Date(transition.occurredAt)) };
      if (!(await deps.anomalies.appendTransition(tenantId, transition, owed))) return false;
      const failed = (error: unknown) => ({ error });
      const stepFailure = whenStored === undefined ? null : await whenStored().then(() => null, failed);
      // Written even when the step failed, so the chain has this change's record before any the caller makes next.
      const recordFailure = await owedRecords
        .write(deps.anomalies, tenantId, { kind: 'transition', anomalyId, seq }, owed, statusChangedEvent(anomaly, transition))
        .then(() => null, failed);
      const failure = stepFailure ?? recordFailure;
      if (failure !== null) throw failure.error;
      return true;
    },
  };
}
