// The anomaly endpoints of the REST API (src/anomalies/README.md), as the console calls them.
import { newIdempotencyKey } from './idempotency-key.js';

const ANOMALIES = '/api/v1/audit/anomalies';

export const ANOMALY_TYPES = ['HIGH_FAILURE_RATE', 'ZOMBIE_VERSION', 'PERFORMANCE_DEGRADATION'];
export const ANOMALY_STATUSES = ['OPEN', 'VERIFYING', 'RESOLVED', 'DISMISSED'];
export const ANOMALY_SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
/** The moves a PATCH may ask for from each status (VERIFYING ends only by its job). */
export const TRIAGE_MOVES = { OPEN: ['RESOLVED', 'DISMISSED'], RESOLVED: ['OPEN'], DISMISSED: ['OPEN'], VERIFYING: [] };

export function anomalyApi(client) {
  const one = (id) => `${ANOMALIES}/${encodeURIComponent(id)}`;
  return {
    list: ({ page, size, type, days }) => client.get(ANOMALIES, { page, size, type, days }),
    detail: (id) => client.get(one(id)),
    verify: (id) => client.send('POST', `${one(id)}/actions/verify`, { idempotencyKey: newIdempotencyKey() }),
    changeStatus: (id, status, note) =>
      client.send('PATCH', `${one(id)}/status`, { body: { status, note: note === '' ? null : note }, idempotencyKey: newIdempotencyKey() }),
    settings: () => client.get('/api/v1/audit/anomaly-settings'),
    rollups: (query) => client.get('/api/v1/audit/rollups', query),
  };
}
