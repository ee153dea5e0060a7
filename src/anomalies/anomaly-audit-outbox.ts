import type { AuditOutbox } from '../audit/index.js';
import { detectedEvent, DETECTOR_ACTOR, statusChangedEvent } from './anomaly-events.js';
import type { AnomalyRepository, AuditedAnomalyEntry } from './anomaly-store.js';

/**
 * The anomalies and their status logs as an audit outbox: every detection owes its
 * ANOMALY_DETECTED record, and every status change (triage, the start of a verification, the
 * verification job's outcome) its ANOMALY_STATUS_CHANGED record. A record is made of what is
 * stored: the anomaly as detected, or the stored change and the anomaly's identity, which never
 * changes.
 */
export function anomalyAuditOutbox(anomalies: AnomalyRepository): AuditOutbox<AuditedAnomalyEntry> {
  return {
    name: 'anomalies',
    entries: anomalies,
    async recordOf({ tenantId, entry }) {
      if (entry.kind === 'detection') {
        const detected = await anomalies.asDetected(tenantId, entry.anomalyId);
        if (detected === null) throw new Error(`owed audit record of a missing detection ${entry.anomalyId}`);
        return detectedEvent(detected, DETECTOR_ACTOR);
      }
      const [anomaly, transitions] = await Promise.all([anomalies.get(tenantId, entry.anomalyId), anomalies.transitions(tenantId, entry.anomalyId)]);
      const transition = transitions.find((t) => t.seq === entry.seq);
      if (anomaly === null || transition === undefined) {
        throw new Error(`owed audit record of a missing status change ${entry.anomalyId} #${entry.seq}`);
      }
      return statusChangedEvent(anomaly, transition);
    },
  };
}
