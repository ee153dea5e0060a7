// One workflow: its state as replayed by the service (status, outcome, current step, steps with
// their results) and its events as a timeline, followed until it ends or the operator leaves the
// page. While it waits, Approve and Reject answer the signal its step awaits; while it runs or
// waits, Cancel cancels it; each after a confirmation.
import { outcomeBadge, statusBadge } from './badges.js';
import { announce, h, replaceChildren } from './dom.js';
import { failureNotice } from './failure-notice.js';
import { formatTime } from './format.js';
import { confirmWorkflowAction } from './workflow-action-dialog.js';
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
      ['Outcome', outcomeBadge(state.status, state.finalResult) ?? '—'],
      ['Current step', state.currentStep ?? '—'],
      ['Final result', resultText(state.finalResult)],
      ['Policy', `${state.policyModule} version ${state.version}`],
      ['Started', formatTime(state.startedAt)],
      ['Error', state.error ?? '—'],
    ])),
    stepsTable(state.steps),
  );
}

const ACTION_DONE = { approve: 'Approved: the signal was sent.', reject: 'Rejected: the signal was sent.', cancel: 'Cancel requested: its completed steps are being compensated.' };

/**
 * The buttons for what may be done now: Approve and Reject while a step awaits `signal`, Cancel
 * while the workflow runs or waits and no cancel was asked for yet. Null when nothing may be done.
 */
function actionsSection(state, { signal, cancelRequested }, act) {
  const answerable = state.status === 'WAITING' && signal !== undefined;
  const cancellable = (state.status === 'RUNNING' || state.status === 'WAITING') && !cancelRequested;
  if (!answerable && !cancellable) return null;
  const button = (action, className, label, describedBy) =>
    h('button', { type: 'button', className, 'data-action': action, 'aria-describedby': describedBy, onClick: () => act(action, signal) }, label);
  return h(
    'section',
    { className: 'panel workflow-actions', 'aria-labelledby': 'actions-title' },
    h('h2', { id: 'actions-title' }, 'Actions'),
    answerable && h('p', { id: 'awaited-signal', className: 'help' }, `Step ${state.currentStep} awaits the signal “${signal}”.`),
    h(
      'div',
      { className: 'actions' },
      answerable && button('approve', 'primary', 'Approve', 'awaited-signal'),
      answerable && button('reject', 'secondary', 'Reject', 'awaited-signal'),
      cancellable && button('cancel', 'secondary', 'Cancel the workflow'),
    ),
  );
}

export function workflowView({ api, session, id }) {
  const title = h('h1', { id: 'page-title', tabindex: '-1' }, 'Workflow');
  const status = h('p', { className: 'follow-status', role: 'status', 'data-testid': 'follow-status' }, 'Loading the workflow…');
  const stateHolder = h('div', { 'aria-live': 'off' });
  const failure = h('div');
  const actionsHolder = h('div');
  const actionOutcome = h('div', { tabindex: '-1', 'data-testid': 'action-outcome' });
  const timeline = workflowTimeline();
  const view = h(
    'article',
    { 'aria-labelledby': 'page-title' },
    h('nav', { className: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: workflowsHref() }, 'All workflows')),
    title,
    h('p', { className: 'help' }, 'Id ', h('code', {}, id)),
    status,
    failure,
    actionOutcome,
    actionsHolder,
    stateHolder,
    timeline.element,
  );

  /** What the events told so far: the signal each awaiting step awaits, and whether a cancel was asked for. */
  const awaited = new Map();
  let cancelRequested = false;
  let shown = null;
  const showActions = () => {
    if (shown === null) return;
    // A keyboard user on a button keeps the focus on it when the panel is drawn again.
    const focused = actionsHolder.contains(document.activeElement) ? document.activeElement.getAttribute('data-action') : null;
    replaceChildren(actionsHolder, actionsSection(shown, { signal: awaited.get(shown.currentStep), cancelRequested }, act));
    if (focused !== null) actionsHolder.querySelector(`[data-action="${focused}"]`)?.focus();
  };

  async function act(action, signal) {
    const state = shown;
    try {
      const after = await confirmWorkflowAction({ api, state, action, signal });
      if (after === null) {
        (actionsHolder.querySelector(`[data-action="${action}"]`) ?? title).focus();
        return;
      }
      replaceChildren(actionOutcome, h('p', { className: 'action-message', role: 'status' }, ACTION_DONE[action]));
      announce(ACTION_DONE[action]);
      follower.refresh();
    } catch (problem) {
      replaceChildren(actionOutcome, failureNotice(problem, session, 'workflows are changed by members (role MEMBER or above).'));
    }
    actionOutcome.focus();
  }

  let first = true;
  const follower = followWorkflow(api, id, {
    onUpdate: ({ state, events }) => {
      for (const event of events) {
        if (event.eventType === 'SIGNAL_AWAITED' && typeof event.payload?.step === 'string') awaited.set(event.payload.step, event.payload.signal);
        if (event.eventType === 'WORKFLOW_CANCEL_REQUESTED') cancelRequested = true;
      }
      shown = state;
      title.textContent = `Workflow ${state.workflow}`;
      replaceChildren(stateHolder, stateSection(state));
      showActions();
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
  return { element: view, dispose: follower.stop };
}
