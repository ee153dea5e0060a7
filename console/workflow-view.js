// One workflow: its state as replayed by the service (status, current step, steps with their
// results) and its events as a timeline, followed until it ends or the operator leaves the page.
import { statusBadge } from './badges.js';
import { announce, h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime } from './format.js';
import { workflowEventKind } from './workflow-event-kinds.js';
import { followWorkflow } from './workflow-follower.js';
import { workflowsHref } from './workflow-routes.js';
import { workflowTimeline } from './workflow-timeline.js';

function facts(entries) {
  return h('dl', { className: 'facts' }, entries.map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value))));
}

const resultText = (result) => (result === null || result === undefined ? '—' : String(result));

function stepsTable(steps) {
  return h(
    'table',
    { className: 'record-table steps-table' },
    h('caption', { className: 'visually-hidden' }, 'Steps in order'),
    h('thead', {}, h('tr', {}, ['Step', 'Kind', 'Status', 'Result'].map((title) => h('th', { scope: 'col' }, title)))),
    h(
      'tbody',
      {},
      steps.map((step) =>
        h(
          'tr',
          { 'data-step': step.name },
          h('th', { scope: 'row', 'data-label': 'Step' }, step.name),
          h('td', { 'data-label': 'Kind' }, step.kind === 'await' ? 'awaits a signal' : 'rule'),
          h('td', { 'data-label': 'Status' }, statusBadge(step.status)),
          h('td', { 'data-label': 'Result' }, resultText(step.result)),
        ),
      ),
    ),
  );
}

function stateSection(state) {
  return h(
    'section',
    { className: 'panel', 'aria-labelledby': 'state-title' },
    h('h2', { id: 'state-title' }, 'State'),
    h('div', { 'data-testid': 'workflow-state' }, facts([
      ['Status', statusBadge(state.status)],
      ['Current step', state.currentStep ?? '—'],
      ['Final result', resultText(state.finalResult)],
      ['Policy', `${state.policyModule} version ${state.version}`],
      ['Started', formatTime(state.startedAt)],
      ['Error', state.error ?? '—'],
    ])),
    stepsTable(state.steps),
  );
}

export function workflowView({ api, session, id }) {
  const title = h('h1', { id: 'page-title', tabindex: '-1' }, 'Workflow');
  const status = h('p', { className: 'follow-status', role: 'status', 'data-testid': 'follow-status' }, 'Loading the workflow…');
  const stateHolder = h('div', { 'aria-live': 'off' });
  const failure = h('div');
  const timeline = workflowTimeline();
  const view = h(
    'article',
    { 'aria-labelledby': 'page-title' },
    h('nav', { className: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: workflowsHref() }, 'Open another workflow')),
    title,
    h('p', { className: 'help' }, 'Id ', h('code', {}, id)),
    status,
    failure,
    stateHolder,
    timeline.element,
  );

  let first = true;
  const stop = followWorkflow(api, id, {
    onUpdate: ({ state, events }) => {
      title.textContent = `Workflow ${state.workflow}`;
      replaceChildren(stateHolder, stateSection(state));
      replaceChildren(failure);
      timeline.update(events, state);
      const ended = ['COMPLETED', 'FAILED', 'CANCELLED'].includes(state.status);
      status.textContent = ended ? `Ended: ${state.status}.` : `${state.status}: following its events.`;
      // Announce what happened after the first load, not the whole history.
      if (!first && events.length > 0) announce(events.map((event) => workflowEventKind(event.eventType).label).join(', '));
      first = false;
    },
    onFailure: (problem, { retrying }) => {
      status.textContent = retrying ? 'The service did not answer; trying again.' : 'The workflow cannot be shown.';
      replaceChildren(failure, failureNotice(problem, session, 'workflows are for members (role MEMBER or above).'));
    },
  });
  return { element: view, dispose: stop };
}
