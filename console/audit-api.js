// The audit chain's endpoints of the REST API (docs/api.md, "Endpoints of the HTTP foundation"), as
// the console calls them. Each list answers one filter at a time, newest first, paged by `before`.

const AUDIT = '/api/v1/audit';

/** The event types the service records (GET /audit/type/{other} is a 400). */
export const AUDIT_EVENT_TYPES = [
  'POLICY_EVALUATED',
  'SOURCE_EVALUATED',
  'POLICY_DEPLOYED',
  'POLICY_ROLLED_BACK',
  'POLICY_ROLLOUT_STARTED',
  'POLICY_ROLLOUT_PROMOTED',
  'POLICY_ROLLOUT_ABORTED',
  'ANOMALY_DETECTED',
  'ANOMALY_STATUS_CHANGED',
  'ANOMALY_SETTINGS_CHANGED',
];

/** The range endpoint needs both bounds; an open side is the widest instant the API accepts. */
const EARLIEST = '1970-01-01T00:00:00Z';
const LATEST = '9999-12-31T23:59:59Z';

export function auditApi(client) {
  return {
    /** One list call: `source` is what audit-filter-plan.js chose for the page's filters. */
    list: (source, { limit, before }) => {
      if (source.kind === 'policy') return client.get(`${AUDIT}/policy/${encodeURIComponent(source.policyModule)}/${encodeURIComponent(source.policyFunction)}`, { limit, before });
      if (source.kind === 'type') return client.get(`${AUDIT}/type/${encodeURIComponent(source.eventType)}`, { limit, before });
      if (source.kind === 'range') return client.get(`${AUDIT}/range`, { startTime: source.from ?? EARLIEST, endTime: source.to ?? LATEST, limit, before });
      return client.get(AUDIT, { limit, before });
    },
    verify: () => client.get(`${AUDIT}/verify`),
    /** The records linked after `afterSeq`, ascending, as they are linked (Server-Sent Events); returns `stop()`. */
    followRecords: (afterSeq, handlers) => client.stream(`${AUDIT}/stream`, { afterSeq }, handlers),
  };
}
