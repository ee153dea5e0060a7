// The console's entry: which page to show for the URL and the session, redrawn on every
// navigation. Pages fill their own element as their calls answer; one that was left meanwhile is
// simply no longer on the page.
import { anomalyApi } from './anomaly-api.js';
import { anomalyDetailView } from './anomaly-detail-view.js';
import { anomalyListView } from './anomaly-list-view.js';
import { createApiClient } from './api-client.js';
import { auditOrWorkflowPage } from './audit-workflow-pages.js';
import { replaceChildren } from './dom.js';
import { playgroundPage } from './playground-page.js';
import { policyPageFor } from './policy-pages.js';
import { currentRoute } from './routes.js';
import { sessionBar } from './session-bar.js';
import { endSession, readSession } from './session.js';
import { signInView } from './sign-in-view.js';
import { webhookPageFor } from './webhook-pages.js';

const main = document.getElementById('main');
const bar = document.getElementById('session-bar');
let notice = null;
let disposeCurrent = () => {};

function signOut(why) {
  endSession();
  notice = why;
  render();
}

function render() {
  disposeCurrent();
  disposeCurrent = () => {};
  const session = readSession();
  replaceChildren(bar, sessionBar(session, { onSignOut: () => signOut(null) }));
  if (!session) {
    document.title = 'Sign in · Policy engine console';
    replaceChildren(main, signInView({ notice, onSignedIn: () => ((notice = null), render()) }));
    return;
  }
  const client = createApiClient(session, { onUnauthorized: () => signOut('The service refused the token (expired or not valid here): sign in again.') });
  const api = anomalyApi(client);
  const route = currentRoute();
  const auditOrWorkflow = auditOrWorkflowPage(route, { client, session });
  const policyPage = policyPageFor(route, { client, session });
  const webhookPage = webhookPageFor(route, { client, session });
  if (route.name === 'playground') {
    const page = playgroundPage({ client, session });
    document.title = `${page.title} · Policy engine console`;
    disposeCurrent = page.dispose;
    replaceChildren(main, page.element);
  } else if (policyPage) {
    document.title = `${policyPage.title} · Policy engine console`;
    disposeCurrent = policyPage.dispose ?? disposeCurrent;
    replaceChildren(main, policyPage.element);
  } else if (webhookPage) {
    document.title = `${webhookPage.title} · Policy engine console`;
    replaceChildren(main, webhookPage.element);
  } else if (route.name === 'anomaly') {
    document.title = 'Anomaly · Policy engine console';
    const page = anomalyDetailView({ api, client, session, id: route.id });
    disposeCurrent = page.dispose;
    replaceChildren(main, page.element);
  } else if (auditOrWorkflow) {
    document.title = `${auditOrWorkflow.title} · Policy engine console`;
    disposeCurrent = auditOrWorkflow.dispose;
    replaceChildren(main, auditOrWorkflow.element);
  } else {
    document.title = 'Anomalies · Policy engine console';
    replaceChildren(main, anomalyListView({ api, session, params: route.params }));
  }
  // Keyboard and screen-reader users start at the new page's heading.
  main.querySelector('h1')?.focus();
}

window.addEventListener('hashchange', render);
render();
