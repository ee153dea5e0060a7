// The workflow endpoints the console reads (src/workflows/README.md): the state rebuilt by replay,
// and the event log from a sequence on. The API has no list of workflows.

export const WORKFLOW_ENDED = ['COMPLETED', 'FAILED', 'CANCELLED'];

export function workflowApi(client) {
  const one = (id) => `/api/v1/workflows/${encodeURIComponent(id)}`;
  return {
    state: (id) => client.get(one(id)),
    /** Events with `sequence ≥ fromSeq`, ascending, a page per call: `[]` past the end. */
    events: (id, fromSeq) => client.get(`${one(id)}/events`, { fromSeq }),
  };
}
