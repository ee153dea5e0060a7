// The anomaly list with the interface's filters (type, days) and paging, newest first.
import { ANOMALY_TYPES } from './anomaly-api.js';
import { severityBadge, statusBadge } from './badges.js';
import { h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime, humanize } from './format.js';
import { anomalyHref, anomalyListHref } from './routes.js';

const DAY_CHOICES = [1, 7, 30, 90, 365];
const SIZE_CHOICES = [10, 20, 50, 100];

/** The list's query from the URL, defaults as the API's (page 0, size 20, all types, 7 days). */
function listQuery(params) {
  const number = (name, fallback) => (/^\d+$/.test(params.get(name) ?? '') ? Number(params.get(name)) : fallback);
  const type = ANOMALY_TYPES.includes(params.get('type')) ? params.get('type') : '';
  return { type, days: number('days', 7), size: number('size', 20), page: number('page', 0) };
}

function select(id, label, value, options, onChange) {
  return h(
    'div',
    { className: 'field' },
    h('label', { for: id }, label),
    h(
      'select',
      { id, name: id, onChange: (event) => onChange(event.target.value) },
      options.map(([optionValue, text]) => h('option', { value: optionValue, selected: String(optionValue) === String(value) }, text)),
    ),
  );
}

function anomalyRow(anomaly) {
  return h(
    'tr',
    {},
    h('td', { 'data-label': 'Severity' }, severityBadge(anomaly.severity)),
    h('td', { 'data-label': 'Status' }, statusBadge(anomaly.status)),
    h('td', { 'data-label': 'Type' }, humanize(anomaly.type)),
    h('td', { 'data-label': 'Policy' }, h('a', { href: anomalyHref(anomaly.id) }, `${anomaly.policyModule}.${anomaly.policyFunction}`, h('span', { className: 'version' }, ` @${anomaly.versionId.split('@').pop()}`))),
    h('td', { 'data-label': 'Summary', className: 'summary' }, anomaly.summary),
    h('td', { 'data-label': 'Detected' }, h('time', { datetime: anomaly.detectedAt }, formatTime(anomaly.detectedAt))),
  );
}

export function anomalyListView({ api, session, params }) {
  const query = listQuery(params);
  const go = (changes) => {
    window.location.hash = anomalyListHref({ ...query, page: 0, ...changes });
  };
  const results = h('div', { className: 'results', 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading anomalies…'));
  const filters = h(
    'form',
    { className: 'filters', role: 'search', 'aria-label': 'Filter anomalies', onSubmit: (event) => event.preventDefault() },
    select('filter-type', 'Type', query.type, [['', 'All types'], ...ANOMALY_TYPES.map((type) => [type, humanize(type)])], (type) => go({ type })),
    select('filter-days', 'Detected within', query.days, DAY_CHOICES.map((days) => [days, days === 1 ? 'the last day' : `the last ${days} days`]), (days) => go({ days })),
    select('filter-size', 'Per page', query.size, SIZE_CHOICES.map((size) => [size, String(size)]), (size) => go({ size })),
  );
  const view = h('section', { 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title', tabindex: '-1' }, 'Anomalies'), filters, results);

  api.list(query).then(
    (page) => {
      results.setAttribute('aria-busy', 'false');
      if (page.content.length === 0) {
        replaceChildren(results, h('p', { className: 'empty' }, page.totalElements === 0 ? 'No anomalies match these filters.' : 'This page is past the end of the list.'));
        return;
      }
      const pages = Math.max(page.totalPages, 1);
      replaceChildren(
        results,
        h(
          'table',
          { className: 'anomaly-table' },
          h('caption', { className: 'visually-hidden' }, 'Anomalies, newest first'),
          h('thead', {}, h('tr', {}, ['Severity', 'Status', 'Type', 'Policy', 'Summary', 'Detected'].map((title) => h('th', { scope: 'col' }, title)))),
          h('tbody', {}, page.content.map(anomalyRow)),
        ),
        h(
          'nav',
          { className: 'pager', 'aria-label': 'Pages' },
          h('button', { type: 'button', disabled: page.page === 0, onClick: () => go({ ...query, page: page.page - 1 }) }, 'Previous page'),
          h('p', { 'aria-live': 'polite' }, `Page ${page.page + 1} of ${pages} · ${page.totalElements} ${page.totalElements === 1 ? 'anomaly' : 'anomalies'}`),
          h('button', { type: 'button', disabled: page.page + 1 >= page.totalPages, onClick: () => go({ ...query, page: page.page + 1 }) }, 'Next page'),
        ),
      );
    },
    (failure) => {
      results.setAttribute('aria-busy', 'false');
      replaceChildren(results, failureNotice(failure, session));
    },
  );
  return view;
}
