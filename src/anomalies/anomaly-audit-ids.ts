import { owedRecordId } from '../audit/index.js';
import { ANOMALY_DETECTED, ANOMALY_STATUS_CHANGED } from './anomaly-events.js';

/** The ANOMALY_DETECTED record of an anomaly. */
export function detectedRecordId(tenantId: string, anomalyId: string): string {
  return owedRecordId(ANOMALY_DETECTED, tenantId, anomalyId);
}

/** The ANOMALY_STATUS_CHANGED record of a status change, by the change's seq in its anomaly's log. */
export function statusChangedRecordId(tenantId: string, anomalyId: string, seq: number): string {
  return owedRecordId(ANOMALY_STATUS_CHANGED, tenantId, anomalyId, String(seq));
}
