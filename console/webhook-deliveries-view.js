// One subscription and its recent deliveries, newest first: each event's status, attempts and what
// the receiver last answered, with a Redeliver button that queues one more attempt at once.
import { statusBadge } from './badges.js';
import { h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime } from './format.js';
import { WEBHOOKS_FORBIDDEN } from './webhook-list-view.js';
import { webhookHref, webhooksHref } from './webhook-routes.js';

const time = (iso) => (iso === null ? '—' : h('time', { datetime: iso }, formatTime(iso)));

export function webhookDeliveriesView({ api, session, id, page = 0 }) {
  const facts = h('div', {});
  const results = h('div', { className: 'results', 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading deliveries…'));
  const message = h('p', { className: 'action-message', role: 'status', tabindex: '-1' });
  const view = h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h('p', { className: 'crumbs' }, h('a', { href: webhooksHref() }, 'Webhooks')),
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Webhook deliveries'),
    facts,
    message,
    results,
  );

  const redeliver = async (delivery, button) => {
    button.disabled = true;
    try {
      await api.redeliver(id, delivery.id);
      message.textContent = `Redelivery of ${delivery.type} queued: one more attempt now.`;
    } catch (failure) {
      message.textContent = `Not redelivered: ${failure.code ? `${failure.code}: ` : ''}${failure.message}`;
    }
    message.focus();
    void load();
  };

  const row = (delivery) => {
    const button = h('button', { type: 'button', 'aria-label': `Redeliver ${delivery.type} (${delivery.id})` }, 'Redeliver');
    button.addEventListener('click', () => redeliver(delivery, button));
    return h(
      'tr',
      { 'data-delivery': delivery.id },
      h('td', { 'data-label': 'Event' }, delivery.type),
      h('td', { 'data-label': 'Status' }, statusBadge(delivery.status)),
      h('td', { 'data-label': 'Attempts' }, String(delivery.attempts)),
      h('td', { 'data-label': 'Last answer' }, delivery.lastStatusCode === null ? '—' : `HTTP ${delivery.lastStatusCode}`),
      h('td', { 'data-label': 'Last error', className: 'summary' }, delivery.lastError ?? '—'),
      h('td', { 'data-label': 'Next attempt' }, time(delivery.nextAttemptAt)),
      h('td', { 'data-label': 'Created' }, time(delivery.createdAt)),
      h('td', { 'data-label': 'Actions' }, button),
    );
  };

  const load = () =>
    Promise.all([api.get(id), api.deliveries(id, page)]).then(
      ([subscription, listed]) => {
        results.setAttribute('aria-busy', 'false');
        replaceChildren(
          facts,
          h(
            'dl',
            { className: 'facts' },
            h('div', {}, h('dt', {}, 'URL'), h('dd', {}, subscription.url)),
            h('div', {}, h('dt', {}, 'Events'), h('dd', {}, subscription.events.join(', '))),
            h('div', {}, h('dt', {}, 'Created'), h('dd', {}, time(subscription.createdAt))),
          ),
        );
        if (listed.content.length === 0) {
          replaceChildren(results, h('p', { className: 'empty' }, listed.totalElements === 0 ? 'No deliveries yet: events that happen from now on show here.' : 'This page is past the end of the list.'));
          return;
        }
        replaceChildren(
          results,
          h(
            'table',
            { className: 'data-table delivery-table' },
            h('caption', { className: 'visually-hidden' }, 'Deliveries, newest first'),
            h('thead', {}, h('tr', {}, ['Event', 'Status', 'Attempts', 'Last answer', 'Last error', 'Next attempt', 'Created', 'Actions'].map((title) => h('th', { scope: 'col' }, title)))),
            h('tbody', {}, listed.content.map(row)),
          ),
          listed.totalPages > 1 &&
            h(
              'nav',
              { className: 'pager', 'aria-label': 'Pages' },
              h('a', { className: 'button-link', href: webhookHref(id, Math.max(0, page - 1)), 'aria-disabled': page === 0 ? 'true' : null }, 'Previous page'),
              h('p', {}, `Page ${page + 1} of ${listed.totalPages}`),
              h('a', { className: 'button-link', href: webhookHref(id, page + 1), 'aria-disabled': page + 1 >= listed.totalPages ? 'true' : null }, 'Next page'),
            ),
        );
      },
      (failure) => {
        results.setAttribute('aria-busy', 'false');
        replaceChildren(results, failureNotice(failure, session, WEBHOOKS_FORBIDDEN));
      },
    );
  void load();
  return view;
}
