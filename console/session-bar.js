// The sections, who is signed in (tenant, subject, role) and the way out.
import { h } from './dom.js';
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
    h('button', { type: 'button', className: 'quiet', onClick: onSignOut }, 'Sign out'),
  ];
}
