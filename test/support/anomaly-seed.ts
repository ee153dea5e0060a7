// Anomalies put straight into a store as the scheduled detector opens them: the stored anomaly
// (status OPEN) and its ANOMALY_DETECTED audit record, without the traffic it takes to detect one.
import { randomUUID } from 'node:crypto';
import { detectedEvent, DETECTOR_ACTOR } from '../../src/anomalies/anomaly-events.js';
import type { AnomalyKey, StoredAnomaly } from '../../src/anomalies/index.js';
import { createAuditTrail } from '../../src/audit/index.js';
import type { Store } from '../../src/store/index.js';

export interface AnomalySeed extends AnomalyKey {
  /** Default: a few words naming the key. */
  summary?: string;
}

/**
 * Opens one anomaly per seed for the tenant (detected now) and audits each (stored, and linked unless
 * another process holds the tenant's chain); the stored anomalies, in order.
 */
export async function seedAnomalies(store: Store, tenantId: string, seeds: readonly AnomalySeed[]): Promise<StoredAnomaly[]> {
  const trail = createAuditTrail(store.auditLinks);
  const detectedAt = new Date().toISOString();
  const opened: StoredAnomaly[] = [];
  try {
    for (const { summary, ...key } of seeds) {
      const anomaly: StoredAnomaly = {
        ...key,
        id: randomUUID(),
        occurrence: 1,
        detectedAt,
        observation: {
          observedAt: detectedAt,
          severity: 'HIGH',
          summary: summary ?? `${key.type} of ${key.policyModule}.${key.policyFunction}@${key.version}`,
          metrics: { failureRate: 0.3, sampleSize: 100 },
          recommendedActions: [`Roll back ${key.policyModule}`],
        },
        verification: null,
      };
      if (!(await store.anomalies.insert(tenantId, anomaly))) throw new Error(`tenant ${tenantId} already has an anomaly ${JSON.stringify(key)}`);
      await trail.recorder.append(tenantId, detectedEvent(anomaly, DETECTOR_ACTOR));
      opened.push(anomaly);
    }
  } finally {
    await trail.close();
  }
  return opened;
}
