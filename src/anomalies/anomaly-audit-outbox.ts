import type { AuditOutbox } from '../audit/index.js';
import type { AnomalyRepository, AuditedAnomalyTransition } from '../store/index.js';
import { statusChangedEvent } from './anomaly-events.js';

/**
 * The anomalies' status logs as an audit outbox: every status change (triage, the start of a
 * verification, the verification job's outcome) owes its ANOMALY_STATUS_CHANGED record. The
 * record is made of the stored change and the anomaly's identity, which never changes.
 */
export function anomalyAuditOutbox(anomalies: AnomalyRepository): AuditOutbox<AuditedAnomalyTransition> {
  return {
    name: 'anomaly-transitions',
    entries: anomalies,
    async recordOf({ tenantId, entry }) {
      const [anomaly, transitions] = await Promise.all([anomalies.get(tenantId, entry.anomalyId), anomalies.transitions(tenantId, entry.anomalyId)]);
      const transition = transitions.find((t) => t.seq === entry.seq);
      if (anomaly === null || transition === undefined) {
        throw new Error(`owed audit record of a missing status change ${entry.anomalyId} #${entry.seq}`);
      }
      return statusChangedEvent(anomaly, transition);
    },
  };
}
