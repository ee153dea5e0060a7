// The console's pages live in the URL's fragment (#/anomalies?…, #/anomalies/<id>), so the server
// serves one page and the browser's history and bookmarks work.
import { auditRouteOf } from './audit-routes.js';
import { PLAYGROUND_PATH } from './playground-page.js';
import { policyRouteOf } from './policy-routes.js';
import { webhookRouteOf } from './webhook-routes.js';
import { workflowRouteOf } from './workflow-routes.js';

export function currentRoute() {
  const hash = window.location.hash.replace(/^#/, '') || '/anomalies';
  const [path, search = ''] = hash.split('?');
  const detail = /^\/anomalies\/([^/]+)$/.exec(path);
  if (detail) return { name: 'anomaly', id: decodeURIComponent(detail[1]) };
  if (path === PLAYGROUND_PATH) return { name: 'playground' };
  const policyRoute = policyRouteOf(path, search);
  if (policyRoute) return policyRoute;
  const webhookRoute = webhookRouteOf(path, search);
  if (webhookRoute) return webhookRoute;
  const auditOrWorkflowRoute = auditRouteOf(path, search) ?? workflowRouteOf(path, search);
  if (auditOrWorkflowRoute) return auditOrWorkflowRoute;
  return { name: 'anomalies', params: new URLSearchParams(search) };
}

export function anomalyListHref(params) {
  const search = new URLSearchParams(Object.entries(params).filter(([, value]) => value !== undefined && value !== '' && value !== null)).toString();
  return `#/anomalies${search ? `?${search}` : ''}`;
}

export function anomalyHref(id) {
  return `#/anomalies/${encodeURIComponent(id)}`;
}
