import type { Db, IndexDescription } from 'mongodb';
import type { AnomalyStatus, AnomalyType } from '../../anomalies/anomaly-enums.js';
import { AUDIT_PENDING_INDEX, type AuditedEntryFields } from './mongo-audit-outbox.js';

/** Collections of anomalies, their detections, their status changes and the tenants' detection settings. */
export const ANOMALY_COLLECTIONS = {
  anomalies: 'anomalies',
  detections: 'anomaly_detections',
  verifications: 'anomaly_verifications',
  transitions: 'anomaly_transitions',
  settings: 'anomaly_settings',
  openMarks: 'anomaly_open_marks',
  /**
   * Claims on the detections' and the transitions' owed audit records after the first (see
   * mongo-audit-outbox.ts); one collection serves both, as a claim's `_id` holds its record id.
   */
  auditClaims: 'anomaly_audit_claims',
} as const;

/**
 * `_id` is `<tenant>:<id>`, so a lookup by id is an `_id` equality. Observation and verification are
 * JSON text, like audit payloads: metrics come back exactly as written.
 */
export interface AnomalyDocument {
  _id: string;
  tenantId: string;
  id: string;
  type: AnomalyType;
  policyModule: string;
  policyFunction: string;
  version: number;
  occurrence: number;
  detectedAt: string;
  observation: string;
  verification: string | null;
}

/**
 * An anomaly as it was detected, inserted before the anomaly itself and never changed but for the
 * mark of the ANOMALY_DETECTED record it owes: the outbox entry of that record. It is a document
 * of its own because FerretDB loses one of two concurrent updates of a document, and the anomaly's
 * observation and verification are updated. Its unique (tenant, key, occurrence) decides which of
 * concurrent detectors opens an occurrence. `_id` is the anomaly's. Anomalies stored before
 * detections were kept have none (and owe nothing).
 */
export interface AnomalyDetectionDocument extends Omit<AnomalyDocument, 'id' | 'verification'>, AuditedEntryFields {
  anomalyId: string;
}

/**
 * What the newest verification job found (JSON text), replaced by each: a document of its own, as
 * detection rounds update the anomaly's observation at the same time. `_id` is the anomaly's.
 * Anomalies verified before verifications were apart keep theirs in `AnomalyDocument.verification`.
 */
export interface AnomalyVerificationDocument {
  _id: string;
  tenantId: string;
  verification: string;
}

/**
 * `_id` is `<tenant>:<anomalyId>:<seq>`: a repeated seq is a duplicate key, whatever the backend.
 * Absent `audit` fields: the transition owes nothing (stored before transitions owed records).
 */
export interface AnomalyTransitionDocument extends AuditedEntryFields {
  _id: string;
  tenantId: string;
  anomalyId: string;
  seq: number;
  from: AnomalyStatus;
  to: AnomalyStatus;
  note: string | null;
  actorId: string;
  occurredAt: string;
  /** What the verification job found (JSON text), on the change it made only. */
  verification?: string;
  /** The keyed request that made the change, on such a change only. */
  requestRef?: string;
}

/**
 * A mark that an anomaly may be OPEN from its status `seq` on (0: as detected), so that a tenant's
 * OPEN anomalies are found without reading the ones that ended. Marks are only inserted and
 * deleted, never updated (FerretDB loses one of two concurrent updates of a document): one is
 * inserted before the anomaly, or its change to OPEN, is stored; a change away from OPEN deletes
 * the marks up to its seq once stored. Every OPEN anomaly thus has a mark; a mark whose anomaly is
 * not OPEN (its writer lost a race or stopped) is deleted by the reader that finds it so.
 * `_id` is `<tenant>:<anomalyId>:<seq>`.
 */
export interface AnomalyOpenMarkDocument {
  _id: string;
  tenantId: string;
  anomalyId: string;
  seq: number;
  markedAt: string;
}

export const openMarkId = (tenantId: string, anomalyId: string, seq: number) => `${tenantId}:${anomalyId}:${seq}`;

/** `_id` is the tenant id; `values` is JSON text. */
export interface AnomalySettingsDocument {
  _id: string;
  values: string;
  actorId: string;
  updatedAt: string;
}

/** One anomaly per tenant, key and occurrence: on the detections it decides between detectors. */
const KEY_OCCURRENCE_UNIQUE: IndexDescription = {
  key: { tenantId: 1, type: 1, policyModule: 1, policyFunction: 1, version: 1, occurrence: 1 },
  name: 'tenant_key_occurrence_unique',
  unique: true,
};

export const ANOMALY_INDEXES: Record<string, IndexDescription[]> = {
  [ANOMALY_COLLECTIONS.anomalies]: [KEY_OCCURRENCE_UNIQUE, { key: { tenantId: 1, detectedAt: -1 }, name: 'tenant_detected_at' }],
  [ANOMALY_COLLECTIONS.detections]: [KEY_OCCURRENCE_UNIQUE, AUDIT_PENDING_INDEX],
  [ANOMALY_COLLECTIONS.transitions]: [
    { key: { tenantId: 1, anomalyId: 1, seq: 1 }, name: 'tenant_anomaly_seq_unique', unique: true },
    AUDIT_PENDING_INDEX,
  ],
  [ANOMALY_COLLECTIONS.openMarks]: [{ key: { tenantId: 1, anomalyId: 1, seq: 1 }, name: 'tenant_anomaly_seq' }],
};

/** Creates the indexes (idempotent), one per command as ensureIndexes does for FerretDB's sake. */
export async function ensureAnomalyIndexes(db: Db): Promise<void> {
  for (const [collection, indexes] of Object.entries(ANOMALY_INDEXES)) {
    for (const index of indexes) await db.collection(collection).createIndexes([index]);
  }
}
