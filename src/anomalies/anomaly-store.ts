import type { AuditOutboxRepository, OwedAudit } from '../audit/index.js';
import type { AnomalySeverity, AnomalyStatus, AnomalyType } from './anomaly-enums.js';

/** What an anomaly is about: at most one live (OPEN or VERIFYING) anomaly per tenant and key. */
export interface AnomalyKey {
  type: AnomalyType;
  policyModule: string;
  policyFunction: string;
  /** Module version; 0 for the built-in module. */
  version: number;
}

/** What one detection saw; the newest replaces the one before. */
export interface AnomalyObservation {
  observedAt: string;
  severity: AnomalySeverity;
  summary: string;
  /** Plain JSON numbers and strings, specific to the type. */
  metrics: Record<string, unknown>;
  recommendedActions: string[];
}

/** What the last verification job found. */
export interface AnomalyVerification {
  verifiedAt: string;
  /** The status the job set. */
  outcome: 'RESOLVED' | 'OPEN';
  /** `CONDITION_HOLDS`, `CONDITION_CLEARED` or `NO_TRAFFIC`. */
  reason: string;
  /** The type's metrics over the window the job looked at. */
  metrics: Record<string, unknown>;
}

/** An anomaly as stored: its identity never changes; observation and verification are replaced. */
export interface StoredAnomaly extends AnomalyKey {
  id: string;
  /** 1, 2, … per tenant and key: a new anomaly after the previous one ended (resolved, dismissed). */
  occurrence: number;
  detectedAt: string;
  observation: AnomalyObservation;
  verification: AnomalyVerification | null;
}

/**
 * One status change, numbered `seq` 1, 2, … per anomaly, insert-only: the unique (tenant,
 * anomaly, seq) decides races between concurrent changes, as activations do for policies.
 */
export interface AnomalyTransition {
  anomalyId: string;
  seq: number;
  from: AnomalyStatus;
  to: AnomalyStatus;
  note: string | null;
  actorId: string;
  occurredAt: string;
  /** What the verification job found, on the change it made; absent on every other change. */
  verification?: AnomalyVerification;
  /**
   * The reference of the keyed request that made the change (an API request with an
   * Idempotency-Key): a repeat of that request finds its change by it. Absent on every other change.
   */
  requestRef?: string;
}

/**
 * An anomaly log entry that can owe an audit record: the anomaly's detection (its ANOMALY_DETECTED
 * record) or a status transition by its place in the log (its ANOMALY_STATUS_CHANGED record).
 */
export type AuditedAnomalyEntry = { kind: 'detection'; anomalyId: string } | { kind: 'transition'; anomalyId: string; seq: number };

/** An anomaly and its status: the `to` of its newest transition, OPEN when it has none. */
export interface AnomalyState extends StoredAnomaly {
  status: AnomalyStatus;
  /** Seq of the newest transition; 0 when none. */
  statusSeq: number;
  /** When the newest transition happened; null when none. */
  statusChangedAt: string | null;
}

export interface AnomalyListQuery {
  type?: AnomalyType;
  /** Inclusive lower bound on detectedAt. */
  detectedFrom: string;
  offset: number;
  limit: number;
}

/** Which OPEN anomalies `openObservedBefore` lists. */
export interface OpenAnomalyQuery {
  /** Exclusive upper bound on the observation's observedAt. */
  observedBefore: string;
  limit: number;
}

export interface AnomalyPage {
  items: AnomalyState[];
  /** Every anomaly matching the query, whatever the offset and limit. */
  total: number;
}

/**
 * Anomalies and their status logs; the anomalies (for their detection) and the transitions are the
 * outbox of their audit records.
 */
export interface AnomalyRepository extends AuditOutboxRepository<AuditedAnomalyEntry> {
  /**
   * Stores a new anomaly, with the ANOMALY_DETECTED record it owes when given (in the same insert).
   * Returns false, changing nothing, when the tenant already has that key and occurrence (another
   * detector opened it first: read it with `latest`).
   */
  insert(tenantId: string, anomaly: StoredAnomaly, owedAudit?: OwedAudit): Promise<boolean>;
  /**
   * The anomaly as it was inserted (its first observation; a detection round replaces the stored
   * one), for the record its detection owes; null for an unknown id, or an anomaly stored before
   * the store kept what it was detected with. An adapter that stores a detection and its anomaly
   * in two inserts stores here the anomaly of a detection whose writer stopped between them.
   */
  asDetected(tenantId: string, id: string): Promise<StoredAnomaly | null>;
  /** The key's anomaly with the highest occurrence, or null. */
  latest(tenantId: string, key: AnomalyKey): Promise<AnomalyState | null>;
  get(tenantId: string, id: string): Promise<AnomalyState | null>;
  /** Newest detectedAt first (ties: id ascending). */
  list(tenantId: string, query: AnomalyListQuery): Promise<AnomalyPage>;
  /**
   * The tenant's OPEN anomalies (not VERIFYING) whose observation is older than `observedBefore`,
   * oldest observation first (ties: id ascending), at most `limit`. Found through what the store
   * keeps of its OPEN anomalies, so the tenant's ended anomalies (and other tenants') are not read.
   */
  openObservedBefore(tenantId: string, query: OpenAnomalyQuery): Promise<AnomalyState[]>;
  /** Replaces the observation and/or the verification; false for an unknown id. */
  update(
    tenantId: string,
    id: string,
    change: { observation?: AnomalyObservation; verification?: AnomalyVerification },
  ): Promise<boolean>;
  /**
   * Inserts the transition, with the audit record it owes when given (in the same insert). Returns
   * false when its seq already exists (another change won: re-read and decide again). Throws
   * StoreArgumentError for an unknown anomaly, a seq whose predecessor is missing, or a `from` that
   * is not the predecessor's `to` (OPEN for seq 1).
   */
  appendTransition(tenantId: string, transition: AnomalyTransition, owedAudit?: OwedAudit): Promise<boolean>;
  /** The anomaly's transitions, oldest first. */
  transitions(tenantId: string, anomalyId: string): Promise<AnomalyTransition[]>;
}
