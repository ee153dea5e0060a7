// The tenant's webhook subscriptions, oldest first, each with a link to its recent deliveries and a
// Delete button (confirmed first); below them the form that subscribes a URL to events. A new
// subscription's signing secret is shown once, right after its creation: the service never shows it again.
import { h, replaceChildren, announce } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime } from './format.js';
import { WEBHOOK_EVENT_TYPES } from './webhook-api.js';
import { confirmWebhookDeletion } from './webhook-delete-dialog.js';
import { webhookHref, webhooksHref } from './webhook-routes.js';

export const WEBHOOKS_FORBIDDEN = 'webhooks are for administrators (role ADMIN or OWNER).';

function secretNotice(created) {
  return h(
    'div',
    { className: 'panel webhook-secret', role: 'status', tabindex: '-1' },
    h('h2', {}, 'Subscription created'),
    h('p', {}, `Events now go to ${created.url}. Sign-check them with this secret: copy it now, it is not shown again.`),
    h('p', {}, h('code', { 'data-testid': 'webhook-secret' }, created.secret)),
  );
}

function createForm({ api, onCreated }) {
  const url = h('input', { id: 'webhook-url', name: 'url', type: 'text', inputmode: 'url', required: true, maxlength: 2048, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'webhook-url-help' });
  const boxes = WEBHOOK_EVENT_TYPES.map((type) => h('input', { id: `webhook-event-${type}`, name: 'events', type: 'checkbox', value: type }));
  const submit = h('button', { type: 'submit', className: 'primary' }, 'Subscribe');
  const error = h('p', { className: 'form-error', role: 'alert' });
  const form = h(
    'form',
    { className: 'webhook-form', 'aria-labelledby': 'webhook-form-title' },
    h('h2', { id: 'webhook-form-title' }, 'Subscribe a URL'),
    h(
      'div',
      { className: 'field' },
      h('label', { for: 'webhook-url' }, 'URL'),
      url,
      h('p', { id: 'webhook-url-help', className: 'help' }, 'An https:// address the service may reach: addresses of private networks, loopback and cloud metadata are refused.'),
    ),
    h(
      'fieldset',
      { className: 'mode-choice' },
      h('legend', {}, 'Events'),
      boxes.map((box) => h('div', { className: 'choice' }, box, h('label', { for: box.id }, box.value))),
    ),
    error,
    submit,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const events = boxes.filter((box) => box.checked).map((box) => box.value);
    if (events.length === 0) {
      error.textContent = 'Choose at least one event.';
      return;
    }
    error.textContent = '';
    submit.disabled = true;
    try {
      const created = await api.create(url.value.trim(), events);
      url.value = '';
      for (const box of boxes) box.checked = false;
      onCreated(created);
    } catch (failure) {
      error.textContent = failure.code ? `${failure.code}: ${failure.message}` : failure.message;
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

export function webhookListView({ api, session, page = 0 }) {
  const results = h('div', { className: 'results', 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading subscriptions…'));
  const message = h('p', { className: 'action-message', role: 'status', tabindex: '-1' });
  const created = h('div', {});
  const view = h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Webhooks'),
    h('p', { className: 'help' }, 'URLs the service pushes events to (anomalies, workflow ends, deploys, rollbacks and rollouts), signed with each subscription\'s secret and retried until they are taken.'),
    message,
    created,
    results,
    session.can('ADMIN') &&
      createForm({
        api,
        onCreated: (subscription) => {
          replaceChildren(created, secretNotice(subscription));
          created.firstChild.focus();
          announce('Subscription created; its secret is shown once.');
          void load();
        },
      }),
  );

  const remove = async (subscription) => {
    try {
      if ((await confirmWebhookDeletion({ api, subscription })) === null) return;
      message.textContent = `Deleted the subscription of ${subscription.url}.`;
    } catch (failure) {
      message.textContent = `Not deleted: ${failure.code ? `${failure.code}: ` : ''}${failure.message}`;
    }
    message.focus();
    void load();
  };

  const row = (subscription) =>
    h(
      'tr',
      {},
      h('td', { 'data-label': 'URL', className: 'webhook-url' }, h('a', { href: webhookHref(subscription.id) }, subscription.url)),
      h('td', { 'data-label': 'Events' }, subscription.events.join(', ')),
      h('td', { 'data-label': 'Created' }, h('time', { datetime: subscription.createdAt }, formatTime(subscription.createdAt))),
      h('td', { 'data-label': 'Actions' }, h('button', { type: 'button', 'aria-label': `Delete the subscription of ${subscription.url}`, onClick: () => remove(subscription) }, 'Delete')),
    );

  const load = () =>
    api.list(page).then(
      (listed) => {
        results.setAttribute('aria-busy', 'false');
        if (listed.content.length === 0) {
          replaceChildren(results, h('p', { className: 'empty' }, listed.totalElements === 0 ? 'No subscriptions yet.' : 'This page is past the end of the list.'));
          return;
        }
        replaceChildren(
          results,
          h(
            'table',
            { className: 'data-table webhook-table' },
            h('caption', { className: 'visually-hidden' }, 'Webhook subscriptions, oldest first'),
            h('thead', {}, h('tr', {}, ['URL', 'Events', 'Created', 'Actions'].map((title) => h('th', { scope: 'col' }, title)))),
            h('tbody', {}, listed.content.map(row)),
          ),
          listed.totalPages > 1 &&
            h(
              'nav',
              { className: 'pager', 'aria-label': 'Pages' },
              h('a', { className: 'button-link', href: webhooksHref(Math.max(0, page - 1)), 'aria-disabled': page === 0 ? 'true' : null }, 'Previous page'),
              h('p', {}, `Page ${page + 1} of ${listed.totalPages}`),
              h('a', { className: 'button-link', href: webhooksHref(page + 1), 'aria-disabled': page + 1 >= listed.totalPages ? 'true' : null }, 'Next page'),
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
