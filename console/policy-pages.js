// Which Policies page a route shows, with its document title (and a `dispose` for the pages that
// need one); null for a route of another section.
import { policyApi } from './policy-api.js';
import { policyDiffView } from './policy-diff-view.js';
import { policyListView } from './policy-list-view.js';
import { policySourceView } from './policy-source-view.js';
import { policyVersionsView } from './policy-versions-view.js';

export function policyPageFor(route, { client, session }) {
  const api = policyApi(client);
  switch (route.name) {
    case 'policies':
      return { title: 'Policies', element: policyListView({ api, session, page: route.page }) };
    case 'policy-versions':
      return { title: `${route.policyModule} · Policies`, ...policyVersionsView({ api, session, policyModule: route.policyModule, page: route.page }) };
    case 'policy-source':
      return { title: `${route.policyModule} version ${route.version} · Policies`, element: policySourceView({ api, session, ...route }) };
    case 'policy-diff':
      return { title: `${route.policyModule} changes · Policies`, element: policyDiffView({ api, session, ...route }) };
    default:
      return null;
  }
}
