import type { AuditEvent } from '../audit/index.js';
import { SERVICE_ACTOR_PREFIXES } from '../kernel/index.js';
import type { AnomalyState, AnomalyTransition, StoredAnomaly } from './anomaly-store.js';
import { anomalyVersionId } from './anomaly-view.js';

/** Audit event types of anomaly detection and triage. */
export const ANOMALY_DETECTED = 'ANOMALY_DETECTED';
export const ANOMALY_STATUS_CHANGED = 'ANOMALY_STATUS_CHANGED';
export const ANOMALY_SETTINGS_CHANGED = 'ANOMALY_SETTINGS_CHANGED';
export const ANOMALY_AUDIT_EVENT_TYPES = [ANOMALY_DETECTED, ANOMALY_STATUS_CHANGED, ANOMALY_SETTINGS_CHANGED] as const;

/** The actor of what the scheduled detector and the verification job do. */
export const DETECTOR_ACTOR = `${SERVICE_ACTOR_PREFIXES.system}anomaly-detect`;
export const VERIFIER_ACTOR = `${SERVICE_ACTOR_PREFIXES.system}anomaly-verify`;

export function detectedEvent(anomaly: StoredAnomaly, actorId: string): AuditEvent {
  return {
    eventType: ANOMALY_DETECTED,
    policyModule: anomaly.policyModule,
    policyFunction: anomaly.policyFunction,
    actorId,
    occurredAt: anomaly.detectedAt,
    payload: {
      anomalyId: anomaly.id,
      type: anomaly.type,
      versionId: anomalyVersionId(anomaly),
      occurrence: anomaly.occurrence,
      severity: anomaly.observation.severity,
      summary: anomaly.observation.summary,
      metrics: anomaly.observation.metrics,
    },
  };
}

/** What a status change's record is made of: the stored change without its numbering or request reference. */
export type StatusChange = Pick<AnomalyTransition, 'from' | 'to' | 'note' | 'actorId' | 'occurredAt' | 'verification'>;

export function statusChangedEvent(anomaly: AnomalyState | StoredAnomaly, change: StatusChange): AuditEvent {
  return {
    eventType: ANOMALY_STATUS_CHANGED,
    policyModule: anomaly.policyModule,
    policyFunction: anomaly.policyFunction,
    actorId: change.actorId,
    occurredAt: change.occurredAt,
    payload: {
      anomalyId: anomaly.id,
      type: anomaly.type,
      versionId: anomalyVersionId(anomaly),
      from: change.from,
      to: change.to,
      note: change.note,
      ...(change.verification ? { verification: change.verification } : {}),
    },
  };
}

export function settingsChangedEvent(actorId: string, overrides: Record<string, number>, occurredAt: string): AuditEvent {
  return { eventType: ANOMALY_SETTINGS_CHANGED, actorId, occurredAt, payload: { overrides } };
}
