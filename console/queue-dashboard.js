// The operators' queue dashboard (Bull Board, /admin/queues) reached from the console without a
// second sign-in: the button posts the console's token to the dashboard's own sign-in, which
// checks it as it checks a pasted one (a token of the operator tenant only) and keeps it in an
// HttpOnly, SameSite=Strict cookie scoped to /admin until the token expires. The button shows only
// when the dashboard accepts the token: the service keeps the rule, the console only asks it.
import { h } from './dom.js';

const BOARD = '/admin/queues/';
const SIGN_IN = '/admin/login';
const SIGN_OUT = '/admin/logout';

/** Per token, whether the dashboard opens for it: asked once per page load. */
const opensFor = new Map();

function dashboardOpens(token) {
  if (!opensFor.has(token)) {
    const asked = fetch(BOARD, { method: 'HEAD', headers: { Authorization: `Bearer ${token}` }, credentials: 'omit', cache: 'no-store' }).then(
      (response) => response.ok,
      () => false,
    );
    opensFor.set(token, asked);
  }
  return opensFor.get(token);
}

/** Posts the token to the dashboard's sign-in; the browser follows its answer to the board. */
function openDashboard(token) {
  const form = h('form', { method: 'post', action: SIGN_IN, hidden: true }, h('input', { type: 'hidden', name: 'token', value: token }));
  document.body.append(form);
  form.submit();
  form.remove();
}

/** The session bar's way to the dashboard: hidden until the dashboard says the token opens it. */
export function queueDashboardButton(session) {
  const button = h('button', { type: 'button', className: 'quiet', hidden: true, 'data-testid': 'queue-dashboard', onClick: () => openDashboard(session.token) }, 'Queue dashboard');
  void dashboardOpens(session.token).then((opens) => {
    button.hidden = !opens;
  });
  return button;
}

/** Signing out of the console signs out of the dashboard too (its cookie is cleared). */
export function endQueueDashboardSession(session) {
  opensFor.delete(session.token);
  return fetch(SIGN_OUT, { redirect: 'manual', credentials: 'same-origin', cache: 'no-store' }).catch(() => {});
}
