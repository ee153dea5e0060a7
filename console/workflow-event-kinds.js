// How each workflow event reads on the timeline: a symbol (decoration only, hidden from screen
// readers), a label, a tone for its colour, and a line of detail from its payload.

const quoted = (text) => `“${text}”`;
const ruleCall = (p) => `${p.policyModule}.${p.policyFunction} answered ${p.result} in ${p.executionTimeMs} ms`;

const KINDS = {
  WORKFLOW_STARTED: { symbol: '▶', label: 'Started', tone: 'neutral', detail: () => '' },
  POLICY_EVALUATED: { symbol: '✓', label: 'Step evaluated', tone: 'step', detail: (p) => `${p.step}: ${ruleCall(p)}` },
  SIGNAL_AWAITED: {
    symbol: '◷',
    label: 'Awaiting signal',
    tone: 'wait',
    detail: (p) => `${p.step}: ${quoted(p.signal)}, ${p.timeoutAt ? `times out at ${p.timeoutAt.slice(0, 19).replace('T', ' ')} UTC` : 'no time limit'}`,
  },
  SIGNAL_RECEIVED: { symbol: '✉', label: 'Signal received', tone: 'signal', detail: (p) => `${p.step}: ${quoted(p.signal)}, ${p.approved ? 'approved' : 'not approved'}` },
  SIGNAL_TIMED_OUT: { symbol: '◴', label: 'Signal timed out', tone: 'failure', detail: (p) => `${p.step}: ${quoted(p.signal)} did not arrive in time` },
  COMPENSATION_STARTED: { symbol: '↺', label: 'Compensation started', tone: 'failure', detail: (p) => `after ${p.failedStep}: ${p.error}` },
  COMPENSATION_COMPLETED: { symbol: '↺', label: 'Step compensated', tone: 'compensation', detail: (p) => `${p.step}: ${ruleCall(p)}` },
  WORKFLOW_COMPLETED: { symbol: '■', label: 'Completed', tone: 'end', detail: (p) => `final result ${p.finalResult}` },
  WORKFLOW_FAILED: { symbol: '✗', label: 'Failed', tone: 'failure', detail: (p) => `${p.failedStep}: ${p.error}` },
  WORKFLOW_CANCEL_REQUESTED: { symbol: '⊘', label: 'Cancel requested', tone: 'failure', detail: (p) => (p.by ? `by ${p.by}` : '') },
  WORKFLOW_CANCELLED: { symbol: '⊘', label: 'Cancelled', tone: 'end', detail: () => '' },
};

/** An event type the console does not know yet still shows, with its payload as detail. */
export function workflowEventKind(eventType) {
  return KINDS[eventType] ?? { symbol: '•', label: eventType, tone: 'neutral', detail: (p) => JSON.stringify(p) };
}
