// The Audit chain and Workflows pages for a route: `{title, element, dispose}`, or null for a
// route of another page.
import { auditApi } from './audit-api.js';
import { auditListView } from './audit-list-view.js';
import { workflowApi } from './workflow-api.js';
import { workflowListView } from './workflow-list-view.js';
import { workflowView } from './workflow-view.js';

const nothingToDispose = () => {};

export function auditOrWorkflowPage(route, { client, session }) {
  if (route.name === 'audit') {
    const page = auditListView({ api: auditApi(client), session, params: route.params });
    return { title: 'Audit chain', element: page.element, dispose: page.dispose };
  }
  if (route.name === 'workflows') return { title: 'Workflows', element: workflowListView({ api: workflowApi(client), session, params: route.params }), dispose: nothingToDispose };
  if (route.name === 'workflow') {
    const page = workflowView({ api: workflowApi(client), session, id: route.id });
    return { title: 'Workflow', element: page.element, dispose: page.dispose };
  }
  return null;
}
