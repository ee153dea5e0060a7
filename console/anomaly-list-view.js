// The anomaly list with the interface's filters (type, days) and paging, newest first. Status and
// severity are matched here, on the page the API answered: the API filters by type and detection
// time only (an anomaly's status is kept as its transitions, its severity inside its observation).
import { ANOMALY_SEVERITIES, ANOMALY_STATUSES, ANOMALY_TYPES } from './anomaly-api.js';
import { severityBadge, statusBadge } from './badges.js';
import { h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime, humanize, withReadableTimes } from './format.js';
import { anomalyHref, anomalyListHref } from './routes.js';

const DAY_CHOICES = [1, 7, 30, 90, 365];
const SIZE_CHOICES = [10, 20, 50, 100];

/** The list's query from the URL, defaults as the API's (page 0, size 20, all types, 7 days), any status and severity. */
function listQuery(params) {
  const number = (name, fallback) => (/^\d+$/.test(params.get(name) ?? '') ? Number(params.get(name)) : fallback);
  const oneOf = (name, values) => (values.includes(params.get(name)) ? params.get(name) : '');
  return {
    type: oneOf('type', ANOMALY_TYPES),
    status: oneOf('status', ANOMALY_STATUSES),
    severity: oneOf('severity', ANOMALY_SEVERITIES),
    days: number('days', 7),
    size: number('size', 20),
    page: number('page', 0),
  };
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
    h('td', { 'data-label': 'Summary', className: 'summary' }, withReadableTimes(anomaly.summary)),
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
    select('filter-status', 'Status', query.status, [['', 'Any status'], ...ANOMALY_STATUSES.map((status) => [status, humanize(status)])], (status) => go({ status })),
    select('filter-severity', 'Severity', query.severity, [['', 'Any severity'], ...ANOMALY_SEVERITIES.map((severity) => [severity, humanize(severity)])], (severity) => go({ severity })),
    select('filter-days', 'Detected within', query.days, DAY_CHOICES.map((days) => [days, days === 1 ? 'the last day' : `the last ${days} days`]), (days) => go({ days })),
    select('filter-size', 'Per page', query.size, SIZE_CHOICES.map((size) => [size, String(size)]), (size) => go({ size })),
  );
  const view = h('section', { 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title', tabindex: '-1' }, 'Anomalies'), filters, results);

  const narrowed = query.status !== '' || query.severity !== '';
  const matches = (anomaly) => (query.status === '' || anomaly.status === query.status) && (query.severity === '' || anomaly.severity === query.severity);
  api.list({ type: query.type, days: query.days, size: query.size, page: query.page }).then(
    (page) => {
      results.setAttribute('aria-busy', 'false');
      const shown = page.content.filter(matches);
      const pages = Math.max(page.totalPages, 1);
      const note = narrowed && h('p', { className: 'help', 'data-testid': 'narrowed-note' }, `Status and severity are matched on each page of the list: ${shown.length} of the ${page.content.length} anomalies on this page match.`);
      if (page.content.length === 0) {
        replaceChildren(results, h('p', { className: 'empty' }, page.totalElements === 0 ? 'No anomalies match these filters.' : 'This page is past the end of the list.'));
        return;
      }
      replaceChildren(
        results,
        note,
        shown.length === 0 ? h('p', { className: 'empty' }, 'No anomaly on this page has this status and severity; the other pages may.') : h(
          'table',
          { className: 'anomaly-table' },
          h('caption', { className: 'visually-hidden' }, 'Anomalies, newest first'),
          h('thead', {}, h('tr', {}, ['Severity', 'Status', 'Type', 'Policy', 'Summary', 'Detected'].map((title) => h('th', { scope: 'col' }, title)))),
          h('tbody', {}, shown.map(anomalyRow)),
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
