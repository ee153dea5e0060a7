// The workflow endpoints the console reads (src/workflows/README.md): the state rebuilt by replay,
// the event log from a sequence on, and its stream. The API has no list of workflows.

export const WORKFLOW_ENDED = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** The events that end a workflow's log: its stream ends after one. */
export const FINAL_EVENTS = ['WORKFLOW_COMPLETED', 'WORKFLOW_FAILED', 'WORKFLOW_CANCELLED'];

export function workflowApi(client) {
  const one = (id) => `/api/v1/workflows/${encodeURIComponent(id)}`;
  return {
    state: (id) => client.get(one(id)),
    /** Events with `sequence ≥ fromSeq`, ascending, a page per call: `[]` past the end. */
    events: (id, fromSeq) => client.get(`${one(id)}/events`, { fromSeq }),
    /** The events from `fromSeq` on as they are appended (Server-Sent Events); returns `stop()`. */
    followEvents: (id, fromSeq, handlers) => client.stream(`${one(id)}/events/stream`, { fromSeq }, handlers),
  };
}
