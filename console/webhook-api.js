// The webhook endpoints the console calls (src/webhooks/README.md): subscriptions, their recent
// deliveries, redelivery. Every one needs ADMIN; the server checks it.

const WEBHOOKS = '/api/v1/webhooks';

export const WEBHOOK_EVENT_TYPES = [
  'ANOMALY_DETECTED',
  'ANOMALY_STATUS_CHANGED',
  'WORKFLOW_COMPLETED',
  'WORKFLOW_FAILED',
  'WORKFLOW_CANCELLED',
  'POLICY_DEPLOYED',
  'POLICY_ROLLED_BACK',
  'POLICY_ROLLOUT_STARTED',
  'POLICY_ROLLOUT_PROMOTED',
  'POLICY_ROLLOUT_ABORTED',
];
export const WEBHOOK_PAGE_SIZE = 20;

export function webhookApi(client) {
  const one = (id) => `${WEBHOOKS}/${encodeURIComponent(id)}`;
  return {
    list: (page) => client.get(WEBHOOKS, { page, size: WEBHOOK_PAGE_SIZE }),
    get: (id) => client.get(one(id)),
    create: (url, events) => client.send('POST', WEBHOOKS, { body: { url, events } }),
    remove: (id) => client.send('DELETE', one(id)),
    deliveries: (id, page) => client.get(`${one(id)}/deliveries`, { page, size: WEBHOOK_PAGE_SIZE }),
    redeliver: (id, deliveryId) => client.send('POST', `${one(id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`),
  };
}
