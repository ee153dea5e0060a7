// The sections, who is signed in (tenant, subject, role), the queue dashboard for operators, and
// the way out (of the dashboard too).
import { h } from './dom.js';
import { endQueueDashboardSession, queueDashboardButton } from './queue-dashboard.js';
import { sectionNav } from './section-nav.js';

export function sessionBar(session, { onSignOut }) {
  if (!session) return [];
  return [
    sectionNav(),
    h(
      'p',
      { className: 'who' },
      h('span', { className: 'visually-hidden' }, 'Signed in: '),
      'tenant ',
      h('strong', { 'data-testid': 'tenant' }, session.tenantId),
      session.subject ? ` · ${session.subject}` : '',
      ' · ',
      h('span', { className: 'role', 'data-testid': 'role' }, session.role),
    ),
    queueDashboardButton(session),
    h('button', { type: 'button', className: 'quiet', onClick: () => void endQueueDashboardSession(session).then(onSignOut) }, 'Sign out'),
  ];
}
