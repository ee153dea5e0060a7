// The tenant's audit chain, newest first: one line per record (time, type, policy function,
// version, actor, outcome) with its payload on demand; filters by event type, policy function,
// version, outcome and time range (typed in UTC), paging by `before`, and the chain's
// verification. Records of a workflow link to its page. The newest page grows as records are
// linked (audit-follower.js), keeping its size.
import { AUDIT_EVENT_TYPES } from './audit-api.js';
import { AUDIT_OUTCOMES, auditFilterPlan, outcomeOf } from './audit-filter-plan.js';
import { followAuditRecords } from './audit-follower.js';
import { readAuditPage } from './audit-page-reader.js';
import { auditHref } from './audit-routes.js';
import { chainVerifyPanel } from './chain-verify-panel.js';
import { formField, formProblem, h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime, humanize } from './format.js';
import { instantParam, typedUtcRange, utcTimeInput } from './utc-time-input.js';
import { workflowHref } from './workflow-routes.js';

const SIZE_CHOICES = [10, 25, 50, 100];
const DEFAULT_SIZE = 25;
const WORKFLOW_ACTOR = /^workflow:(.+)$/;

/** The page's state from the URL: filters, page size, `before`, and the `before`s of the newer pages. */
function auditQuery(params) {
  const size = Number(params.get('size'));
  return {
    eventType: AUDIT_EVENT_TYPES.includes(params.get('type')) ? params.get('type') : '',
    policyModule: (params.get('module') ?? '').trim(),
    policyFunction: (params.get('function') ?? '').trim(),
    version: /^[1-9]\d{0,8}$/.test(params.get('version') ?? '') ? Number(params.get('version')) : null,
    outcome: Object.hasOwn(AUDIT_OUTCOMES, params.get('outcome') ?? '') ? params.get('outcome') : '',
    from: instantParam(params.get('from')),
    to: instantParam(params.get('to')),
    size: SIZE_CHOICES.includes(size) ? size : DEFAULT_SIZE,
    before: /^\d+$/.test(params.get('before') ?? '') ? Number(params.get('before')) : null,
    newer: (params.get('newer') ?? '').split(',').filter((seq) => seq === 'top' || /^\d+$/.test(seq)),
  };
}

function hrefOf(query) {
  return auditHref({
    type: query.eventType,
    module: query.policyModule,
    function: query.policyFunction,
    version: query.version ?? '',
    outcome: query.outcome,
    from: query.from,
    to: query.to,
    size: query.size === DEFAULT_SIZE ? '' : query.size,
    before: query.before ?? '',
    newer: query.newer.join(','),
  });
}

function filterForm(query, go) {
  const type = h('select', { id: 'audit-type', name: 'type' }, [['', 'All types'], ...AUDIT_EVENT_TYPES.map((t) => [t, humanize(t)])].map(([value, text]) => h('option', { value, selected: value === query.eventType }, text)));
  const policyModule = h('input', { id: 'audit-module', name: 'module', type: 'text', value: query.policyModule, autocomplete: 'off', spellcheck: 'false' });
  const policyFunction = h('input', { id: 'audit-function', name: 'function', type: 'text', value: query.policyFunction, autocomplete: 'off', spellcheck: 'false' });
  const version = h('input', { id: 'audit-version', name: 'version', type: 'text', inputmode: 'numeric', value: query.version ?? '', autocomplete: 'off' });
  const outcome = h('select', { id: 'audit-outcome', name: 'outcome' }, [['', 'Any outcome'], ...Object.entries(AUDIT_OUTCOMES).map(([value, { label }]) => [value, label])].map(([value, text]) => h('option', { value, selected: value === query.outcome }, text)));
  const from = utcTimeInput('audit-from', query.from, 'audit-time-help');
  const to = utcTimeInput('audit-to', query.to, 'audit-time-help');
  const size = h('select', { id: 'audit-size', name: 'size' }, SIZE_CHOICES.map((n) => h('option', { value: n, selected: n === query.size }, String(n))));
  const problem = formProblem('audit-filter-error');
  return h(
    'form',
    {
      className: 'filters audit-filters',
      role: 'search',
      'aria-label': 'Filter audit records',
      noValidate: true,
      onSubmit: (event) => {
        event.preventDefault();
        problem.clear([version, from, to]);
        const versionText = version.value.trim();
        if (versionText !== '' && !/^[1-9]\d{0,8}$/.test(versionText)) return problem.show(version, `The version is a whole number from 1 (got “${versionText.slice(0, 20)}”).`);
        const range = typedUtcRange(from, to, 'From', 'To');
        if (range.problem) return problem.show(range.control, range.problem);
        go({
          eventType: type.value,
          policyModule: policyModule.value.trim(),
          policyFunction: policyFunction.value.trim(),
          version: versionText === '' ? null : Number(versionText),
          outcome: outcome.value,
          from: range.from,
          to: range.to,
          size: Number(size.value),
          before: null,
          newer: [],
        });
      },
    },
    formField('audit-type', 'Event type', type),
    formField('audit-module', 'Policy module', policyModule),
    formField('audit-function', 'Policy function', policyFunction),
    formField('audit-version', 'Version', version),
    formField('audit-outcome', 'Outcome', outcome),
    formField('audit-from', 'From (UTC)', from),
    formField('audit-to', 'To (UTC)', to),
    formField('audit-size', 'Per page', size),
    h('div', { className: 'filter-actions' }, h('button', { type: 'submit', className: 'primary' }, 'Apply filters'), h('a', { href: auditHref({}), className: 'button-link' }, 'Clear')),
    h('p', { id: 'audit-time-help', className: 'help filter-help' }, 'Times are UTC, written YYYY-MM-DD HH:MM (24-hour); “To” includes the minute it names. Version and outcome apply to evaluations.'),
    problem.element,
  );
}

function actorCell(actorId) {
  const workflow = WORKFLOW_ACTOR.exec(actorId);
  if (!workflow) return actorId;
  return h('a', { href: workflowHref(workflow[1]), 'aria-label': `Workflow ${workflow[1]}` }, actorId);
}

function outcomeCell(record) {
  const outcome = outcomeOf(record);
  if (outcome === '') return h('span', { className: 'muted' }, '—');
  const { label } = AUDIT_OUTCOMES[outcome];
  return h('span', { className: `badge outcome-${outcome}` }, label);
}

/** The version a record names: the evaluated one, or the one deployed or rolled back to. */
function versionOf(payload) {
  const version = payload?.version;
  return typeof version === 'number' ? String(version) : '—';
}

/** The whole record's payload, one click away (a native disclosure: keyboard and screen readers). */
function payloadDisclosure(record) {
  return h('details', { className: 'payload' }, h('summary', {}, 'Payload', h('span', { className: 'visually-hidden' }, ` of record ${record.seq}`)), h('pre', {}, JSON.stringify({ seq: record.seq, ...record.payload }, null, 2)));
}

function recordRow(record) {
  const policy = record.policyModule ? `${record.policyModule}${record.policyFunction ? `.${record.policyFunction}` : ''}` : '—';
  return h(
    'tr',
    { 'data-seq': record.seq },
    h('td', { 'data-label': 'Time' }, h('time', { datetime: record.occurredAt }, formatTime(record.occurredAt))),
    h('td', { 'data-label': 'Type' }, humanize(record.eventType)),
    h('td', { 'data-label': 'Function' }, policy),
    h('td', { 'data-label': 'Version' }, versionOf(record.payload)),
    h('td', { 'data-label': 'Actor', className: 'actor' }, actorCell(record.actorId)),
    h('td', { 'data-label': 'Outcome' }, outcomeCell(record)),
    h('td', { 'data-label': 'Payload', className: 'payload-cell' }, payloadDisclosure(record)),
  );
}

/** What the page cannot ask the API for in one call, said plainly. */
function planNote(plan) {
  if (!plan.narrowsInBrowser) return null;
  const asked = { policy: 'the policy function', type: 'the event type', range: 'the time range', all: 'the whole chain' }[plan.source.kind];
  return h('p', { className: 'help plan-note' }, `The API filters by one of policy function, event type or time range per call: this page asks it for ${asked} and applies the other filters to the records it reads (a policy module without a function, the version and the outcome are matched here too).`);
}

export function auditListView({ api, session, params }) {
  const query = auditQuery(params);
  const plan = auditFilterPlan(query);
  const go = (next) => {
    window.location.hash = hrefOf(next);
  };
  const results = h('div', { className: 'results', 'aria-busy': 'true' }, h('p', { className: 'loading' }, 'Loading audit records…'));
  const view = h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Audit chain'),
    chainVerifyPanel({ api }),
    h('h2', { id: 'records-title' }, 'Records, newest first'),
    filterForm(query, go),
    planNote(plan),
    results,
  );

  let stopFollowing = null;
  let disposed = false;
  const newest = query.before === null;
  const load = async () => {
    // The newest page follows the chain from its head as read before the page: nothing linked between is missed.
    const headSeq = newest ? ((await api.list({ kind: 'all' }, { limit: 1 }))[0]?.seq ?? 0) : 0;
    return { headSeq, page: await readAuditPage(api, plan, { size: query.size, before: query.before ?? undefined }) };
  };
  load().then(
    ({ headSeq, page }) => {
      results.setAttribute('aria-busy', 'false');
      const newer = query.newer.length > 0;
      const pageStatus = h('p', { 'aria-live': 'polite', 'data-testid': 'audit-page-status' }, page.records.length === 0 ? 'No records.' : `Seq ${page.records[0].seq} to ${page.records.at(-1).seq} · ${page.records.length} shown${plan.narrowsInBrowser ? ` of ${page.scanned} read` : ''}`);
      let olderBefore = page.nextBefore;
      const olderButton = h('button', { type: 'button', disabled: !page.hasOlder, onClick: () => go({ ...query, before: olderBefore, newer: [...query.newer, query.before ?? 'top'] }) }, 'Older records');
      const pager = h(
        'nav',
        { className: 'pager', 'aria-label': 'Pages' },
        h('button', { type: 'button', disabled: !newer, onClick: () => go({ ...query, before: query.newer.at(-1) === 'top' ? null : Number(query.newer.at(-1)), newer: query.newer.slice(0, -1) }) }, 'Newer records'),
        pageStatus,
        olderButton,
      );
      const body = h('tbody', {}, page.records.map(recordRow));
      const table = h(
        'table',
        { className: 'record-table audit-table' },
        h('caption', { className: 'visually-hidden' }, 'Audit records, newest first'),
        h('thead', {}, h('tr', {}, ['Time', 'Type', 'Function', 'Version', 'Actor', 'Outcome', 'Payload'].map((title) => h('th', { scope: 'col' }, title)))),
        body,
      );
      const empty = h('p', { className: 'empty' }, query.before === null ? 'No records match these filters.' : 'No older records match these filters.');
      replaceChildren(
        results,
        page.stoppedEarly && h('p', { className: 'help' }, `Read ${page.scanned} records without filling the page; Older records reads on from seq ${page.nextBefore}.`),
        page.records.length === 0 ? empty : table,
        pager,
      );
      if (!newest || disposed) return;
      stopFollowing = followAuditRecords(api, Math.max(headSeq, page.records[0]?.seq ?? 0), {
        onRecords: (records) => {
          const shown = records.filter(plan.matchesUnfiltered);
          if (shown.length === 0) return;
          if (!table.isConnected) empty.replaceWith(table);
          for (const record of shown) body.prepend(recordRow(record));
          // The page keeps its size: the oldest rows go to the next page.
          while (body.rows.length > query.size) body.lastElementChild.remove();
          const rows = [...body.rows];
          pageStatus.textContent = `Seq ${rows[0].dataset.seq} to ${rows.at(-1).dataset.seq} · ${rows.length} shown`;
          olderButton.disabled = false;
          olderBefore = Number(rows.at(-1).dataset.seq);
        },
      });
    },
    (failure) => {
      results.setAttribute('aria-busy', 'false');
      replaceChildren(results, failureNotice(failure, session, 'the audit chain is for administrators (role ADMIN or OWNER).'));
    },
  );
  return {
    element: view,
    dispose: () => {
      disposed = true;
      stopFollowing?.();
    },
  };
}
