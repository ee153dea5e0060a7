// The tenant's workflows, newest start first, with the list's filters (status, module, workflow,
// start time) and paging; each row links to the workflow's page. The lookup by id stays below.
import { outcomeBadge, statusBadge } from './badges.js';
import { formField, formProblem, h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime } from './format.js';
import { instantParam, typedUtcRange, utcTimeInput } from './utc-time-input.js';
import { WORKFLOW_STATUSES } from './workflow-api.js';
import { workflowLookupForm } from './workflow-lookup-form.js';
import { workflowHref, workflowsHref } from './workflow-routes.js';

const SIZE_CHOICES = [10, 20, 50, 100];
const DEFAULT_SIZE = 20;
/** The API's bound on a module or workflow name (UTF-16 units). */
const MAX_NAME_LENGTH = 256;


/** The list's query from the URL; what the API would refuse falls back to its default. */
function listQuery(params) {
  const size = Number(params.get('size'));
  const name = (key) => {
    const value = (params.get(key) ?? '').trim();
    return value.length <= MAX_NAME_LENGTH ? value : '';
  };
  return {
    status: WORKFLOW_STATUSES.includes(params.get('status')) ? params.get('status') : '',
    policyModule: name('module'),
    workflow: name('workflow'),
    startedAfter: instantParam(params.get('after')),
    startedBefore: instantParam(params.get('before')),
    size: SIZE_CHOICES.includes(size) ? size : DEFAULT_SIZE,
    page: /^\d{1,6}$/.test(params.get('page') ?? '') ? Number(params.get('page')) : 0,
  };
}

function hrefOf(query) {
  return workflowsHref({
    status: query.status,
    module: query.policyModule,
    workflow: query.workflow,
    after: query.startedAfter,
    before: query.startedBefore,
    size: query.size === DEFAULT_SIZE ? '' : query.size,
    page: query.page === 0 ? '' : query.page,
  });
}

function filterForm(query, go) {
  const status = h('select', { id: 'workflow-status', name: 'status' }, [['', 'Any status'], ...WORKFLOW_STATUSES.map((s) => [s, s])].map(([value, text]) => h('option', { value, selected: value === query.status }, text)));
  const policyModule = h('input', { id: 'workflow-module', name: 'module', type: 'text', value: query.policyModule, autocomplete: 'off', spellcheck: 'false' });
  const workflow = h('input', { id: 'workflow-name', name: 'workflow', type: 'text', value: query.workflow, autocomplete: 'off', spellcheck: 'false' });
  const after = utcTimeInput('workflow-after', query.startedAfter, 'workflow-time-help');
  const before = utcTimeInput('workflow-before', query.startedBefore, 'workflow-time-help');
  const problem = formProblem('workflow-filter-error');
  const size = h('select', { id: 'workflow-size', name: 'size' }, SIZE_CHOICES.map((n) => h('option', { value: n, selected: n === query.size }, String(n))));
  return h(
    'form',
    {
      className: 'filters workflow-filters',
      role: 'search',
      'aria-label': 'Filter workflows',
      noValidate: true,
      onSubmit: (event) => {
        event.preventDefault();
        problem.clear([after, before]);
        const range = typedUtcRange(after, before, 'Started from', 'Started before');
        if (range.problem) return problem.show(range.control, range.problem);
        go({
          status: status.value,
          policyModule: policyModule.value.trim(),
          workflow: workflow.value.trim(),
          startedAfter: range.from,
          startedBefore: range.to,
          size: Number(size.value),
          page: 0,
        });
      },
    },
    formField('workflow-status', 'Status', status),
    formField('workflow-module', 'Policy module', policyModule),
    formField('workflow-name', 'Workflow', workflow),
    formField('workflow-after', 'Started from (UTC)', after),
    formField('workflow-before', 'Started before (UTC)', before),
    formField('workflow-size', 'Per page', size),
    h('div', { className: 'filter-actions' }, h('button', { type: 'submit', className: 'primary' }, 'Apply filters'), h('a', { href: workflowsHref(), className: 'button-link' }, 'Clear')),
    h('p', { id: 'workflow-time-help', className: 'help filter-help' }, 'Times are UTC, written YYYY-MM-DD HH:MM (24-hour); “Started before” includes the minute it names.'),
    problem.element,
  );
}

const timeCell = (iso) => (iso ? h('time', { datetime: iso }, formatTime(iso)) : '—');

function workflowRow(item) {
  return h(
    'tr',
    { 'data-workflow-id': item.workflowId },
    h('th', { scope: 'row', 'data-label': 'Workflow' }, h('a', { href: workflowHref(item.workflowId), 'aria-label': `Workflow ${item.workflow} ${item.workflowId}` }, item.workflow, h('code', { className: 'workflow-id' }, item.workflowId))),
    h('td', { 'data-label': 'Policy' }, item.policyModule, h('span', { className: 'version' }, ` @${item.version}`)),
    h('td', { 'data-label': 'Status' }, statusBadge(item.status)),
    h('td', { 'data-label': 'Outcome' }, outcomeBadge(item.status, item.finalResult) ?? '—'),
    h('td', { 'data-label': 'Current step' }, item.currentStep ?? '—'),
    h('td', { 'data-label': 'Started' }, timeCell(item.startedAt)),
    h('td', { 'data-label': 'Finished' }, timeCell(item.finishedAt)),
  );
}

export function workflowListView({ api, session, params }) {
  const query = listQuery(params);
  const go = (next) => {
    window.location.hash = hrefOf(next);
  };
  const results = h('div', { className: 'results', 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading workflows…'));
  const view = h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Workflows'),
    filterForm(query, go),
    results,
    workflowLookupForm(),
  );

  const { size, page, ...filters } = query;
  api.list({ ...filters, size, page }).then(
    (answer) => {
      results.setAttribute('aria-busy', 'false');
      if (answer.content.length === 0) {
        replaceChildren(results, h('p', { className: 'empty' }, answer.totalElements === 0 ? 'No workflows match these filters.' : 'This page is past the end of the list.'));
        return;
      }
      const pages = Math.max(answer.totalPages, 1);
      replaceChildren(
        results,
        h(
          'table',
          { className: 'anomaly-table workflow-table' },
          h('caption', { className: 'visually-hidden' }, 'Workflows, newest start first'),
          h('thead', {}, h('tr', {}, ['Workflow', 'Policy', 'Status', 'Outcome', 'Current step', 'Started', 'Finished'].map((title) => h('th', { scope: 'col' }, title)))),
          h('tbody', {}, answer.content.map(workflowRow)),
        ),
        h(
          'nav',
          { className: 'pager', 'aria-label': 'Pages' },
          h('button', { type: 'button', disabled: answer.page === 0, onClick: () => go({ ...query, page: answer.page - 1 }) }, 'Previous page'),
          h('p', { 'aria-live': 'polite', 'data-testid': 'workflow-page-status' }, `Page ${answer.page + 1} of ${pages} · ${answer.totalElements} ${answer.totalElements === 1 ? 'workflow' : 'workflows'}`),
          h('button', { type: 'button', disabled: answer.page + 1 >= answer.totalPages, onClick: () => go({ ...query, page: answer.page + 1 }) }, 'Next page'),
        ),
      );
    },
    (failure) => {
      results.setAttribute('aria-busy', 'false');
      replaceChildren(results, failureNotice(failure, session, 'workflows are for members (role MEMBER or above).'));
    },
  );
  return view;
}
