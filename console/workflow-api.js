// The workflow endpoints the console calls (src/workflows/README.md): the list of the tenant's
// workflows, the state rebuilt by replay, the event log from a sequence on and its stream, and the
// signal and cancel requests.

export const WORKFLOW_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'CANCELLED'];
export const WORKFLOW_ENDED = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** The events that end a workflow's log: its stream ends after one. */
export const FINAL_EVENTS = ['WORKFLOW_COMPLETED', 'WORKFLOW_FAILED', 'WORKFLOW_CANCELLED'];

export function workflowApi(client) {
  const one = (id) => `/api/v1/workflows/${encodeURIComponent(id)}`;
  return {
    /** A page of the list, newest start first: `{status, policyModule, workflow, startedAfter, startedBefore, page, size}`, each optional. */
    list: (query) => client.get('/api/v1/workflows', query),
    state: (id) => client.get(one(id)),
    /** Events with `sequence ≥ fromSeq`, ascending, a page per call: `[]` past the end. */
    events: (id, fromSeq) => client.get(`${one(id)}/events`, { fromSeq }),
    /** The events from `fromSeq` on as they are appended (Server-Sent Events); returns `stop()`. */
    followEvents: (id, fromSeq, handlers) => client.stream(`${one(id)}/events/stream`, { fromSeq }, handlers),
    /** Answers the signal the waiting step awaits; the state after it. */
    signal: (id, signal, approved) => client.send('POST', `${one(id)}/signals`, { body: { signal, approved } }),
    cancel: (id) => client.send('POST', `${one(id)}/cancel`),
  };
}
