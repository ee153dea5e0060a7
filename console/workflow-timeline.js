// A workflow's events as a timeline, oldest first, growing as the follower is sent new ones; while
// the workflow waits or runs, a last entry says what it is doing now.
import { h, replaceChildren } from './dom.js';
import { formatTime } from './format.js';
import { workflowEventKind } from './workflow-event-kinds.js';

function eventItem(event) {
  const kind = workflowEventKind(event.eventType);
  const detail = kind.detail(event.payload ?? {});
  return h(
    'li',
    { className: `timeline-event tone-${kind.tone}`, 'data-event-type': event.eventType, 'data-sequence': event.sequence },
    h('span', { className: 'timeline-symbol', 'aria-hidden': 'true' }, kind.symbol),
    h(
      'div',
      { className: 'timeline-body' },
      h('p', { className: 'timeline-label' }, h('strong', {}, kind.label), h('span', { className: 'timeline-seq' }, ` #${event.sequence}`)),
      detail && h('p', { className: 'timeline-detail' }, detail),
      h('time', { datetime: event.occurredAt }, formatTime(event.occurredAt)),
    ),
  );
}

function nowText(state) {
  if (state.status === 'WAITING') return `Waiting for a signal at step ${state.currentStep}; new events show here as they happen.`;
  if (state.status === 'RUNNING') return `Running${state.currentStep ? ` step ${state.currentStep}` : ''}; new events show here as they happen.`;
  return null;
}

export function workflowTimeline() {
  const list = h('ol', { className: 'timeline', 'aria-labelledby': 'timeline-title' });
  const now = h('li', { className: 'timeline-event timeline-now tone-wait', 'data-testid': 'timeline-now' });
  const element = h('section', { className: 'panel', 'aria-labelledby': 'timeline-title' }, h('h2', { id: 'timeline-title' }, 'Events'), list);
  return {
    element,
    /** Appends new events and says what the workflow does now. */
    update(events, state) {
      now.remove();
      for (const event of events) list.append(eventItem(event));
      const text = nowText(state);
      if (text) {
        replaceChildren(now, h('span', { className: 'timeline-symbol', 'aria-hidden': 'true' }, '…'), h('div', { className: 'timeline-body' }, h('p', {}, text)));
        list.append(now);
      }
    },
  };
}
