// Which Webhooks page a route shows, with its document title; null for a route of another section.
import { webhookApi } from './webhook-api.js';
import { webhookDeliveriesView } from './webhook-deliveries-view.js';
import { webhookListView } from './webhook-list-view.js';

export function webhookPageFor(route, { client, session }) {
  const api = webhookApi(client);
  if (route.name === 'webhooks') return { title: 'Webhooks', element: webhookListView({ api, session, page: route.page }) };
  if (route.name === 'webhook') return { title: 'Webhook deliveries', element: webhookDeliveriesView({ api, session, id: route.id, page: route.page }) };
  return null;
}
