import { ANOMALY_DETECTED, ANOMALY_STATUS_CHANGED } from '../anomalies/index.js';
import type { AuditRecorder } from '../audit/index.js';
import { POLICY_EVALUATED, SOURCE_EVALUATED } from '../evaluation/index.js';
import type { ServiceMetrics } from './service-metrics.js';

const ERROR_CODE = /^(PL\d{4}|ERR_[A-Z0-9_]+)\b/;

/**
 * The audit recorder, counting what it stores: every answered evaluation has exactly one record
 * (SOURCE_EVALUATED or POLICY_EVALUATED) and every anomaly change one, so the counts are those of
 * the chain. Also measures how long an append waits for its record to be stored.
 */
export function observedAuditRecorder(writer: AuditRecorder, metrics: ServiceMetrics): AuditRecorder {
  return {
    flush: () => writer.flush(),
    close: () => writer.close(),
    stats: () => writer.stats(),
    async append(tenantId, event, options) {
      const stopTimer = metrics.auditAppendLag.startTimer();
      const receipt = await writer.append(tenantId, event, options);
      stopTimer();
      metrics.auditRecords.inc({ event_type: event.eventType });
      const payload = event.payload as Record<string, unknown>;
      if (event.eventType === POLICY_EVALUATED || event.eventType === SOURCE_EVALUATED) {
        const ok = payload.success === true;
        const code = ok ? '' : (ERROR_CODE.exec(String(payload.error ?? ''))?.[1] ?? 'unknown');
        metrics.evaluations.inc({ kind: event.eventType === POLICY_EVALUATED ? 'stored' : 'source', outcome: ok ? 'ok' : 'error', code });
      } else if (event.eventType === ANOMALY_DETECTED) {
        metrics.anomalyEvents.inc({ type: String(payload.type), status: 'OPEN' });
      } else if (event.eventType === ANOMALY_STATUS_CHANGED) {
        metrics.anomalyEvents.inc({ type: String(payload.type), status: String(payload.to) });
      }
      return receipt;
    },
  };
}
