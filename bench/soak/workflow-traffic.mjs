// Workflows through the soak: each one is started (signed), waits for the worker to reach its Await
// step, gets its signal (signed) and is read until it has ended (bearer), so workflows are in every
// state the whole time. The time limit of the Await step is shorter than the soak: the delayed
// `workflow-run` jobs of finished workflows fire during the run and find nothing to do, as they do in
// production.
import { DEPLOY_ROLE } from '../support/bench-service.mjs';
import { bearerHeaders, signedHeaders, transportFailure } from './request-mix.mjs';

export const WORKFLOW_MODULE = 'soak.onboarding';
const WORKFLOW_SOURCE = `Module ${WORKFLOW_MODULE}.

Rule adult given age as Int, produce Bool:
  Return age is at least 18.

Workflow onboard given age as Int:
  Step check: adult(age).
  Step review: Await "approval" within 3 minutes.
  Step confirm: adult(age).
`;

const WORKFLOWS_PATH = '/api/v1/workflows';
const FIRST_LOOK_MS = 1000;
// Reads back off (0.5 s, 1 s, 2 s, … at most 5 s), so slow workflows do not multiply the reads.
const FIRST_POLL_MS = 500;
const LONGEST_POLL_MS = 5000;
export const GIVE_UP_MS = 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function deployWorkflowModule(client, secret) {
  const body = JSON.stringify({ source: WORKFLOW_SOURCE, locale: 'en-US' });
  const answer = await client.request('POST', '/api/v1/policies', signedHeaders('POST', '/api/v1/policies', body, secret, DEPLOY_ROLE), body);
  if (answer.status !== 201) throw new Error(`deploying ${WORKFLOW_MODULE} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
}

/**
 * `send(kind, request, scheduledAt, failure, evaluations)` sends and records one request and resolves
 * with its answer. `start(i, scheduledAt)` runs one workflow's whole life; `settled()` waits for all.
 */
export function createWorkflowTraffic({ send, secret, token }) {
  const counts = { started: 0, completed: 0, notStarted: 0, endedOtherwise: new Map() };
  const running = new Set();

  const ended = (outcome) => counts.endedOtherwise.set(outcome, (counts.endedOtherwise.get(outcome) ?? 0) + 1);

  /** Reads the workflow until `done(state)` holds; the last state, or null after a failed read or GIVE_UP_MS. */
  async function readUntil(workflowId, done) {
    const deadline = performance.now() + GIVE_UP_MS;
    for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(2 * pollMs, LONGEST_POLL_MS)) {
      const path = `${WORKFLOWS_PATH}/${workflowId}`;
      const answer = await send('workflow state, bearer', { method: 'GET', path, headers: bearerHeaders(token) }, performance.now(), transportFailure, 0);
      if (transportFailure(answer) !== null) return null;
      if (done(answer.body) || performance.now() > deadline) return answer.body;
      await sleep(pollMs);
    }
  }

  async function life(i, scheduledAt) {
    const startBody = JSON.stringify({ policyModule: WORKFLOW_MODULE, workflow: 'onboard', context: { age: 18 + (i % 60) } });
    const started = await send(
      'workflow start, signed',
      { method: 'POST', path: WORKFLOWS_PATH, headers: signedHeaders('POST', WORKFLOWS_PATH, startBody, secret), body: startBody },
      scheduledAt,
      transportFailure,
      0,
    );
    const workflowId = started.body?.workflowId;
    if (transportFailure(started) !== null || typeof workflowId !== 'string') {
      counts.notStarted++;
      return;
    }
    counts.started++;
    await sleep(FIRST_LOOK_MS);
    const waiting = await readUntil(workflowId, (state) => state?.status !== 'RUNNING');
    if (waiting?.status !== 'WAITING') return ended(waiting === null ? 'state not readable' : `${waiting.status} instead of WAITING`);

    const signalPath = `${WORKFLOWS_PATH}/${workflowId}/signals`;
    const signalBody = JSON.stringify({ signal: 'approval', approved: true });
    const signalled = await send(
      'workflow signal, signed',
      { method: 'POST', path: signalPath, headers: signedHeaders('POST', signalPath, signalBody, secret), body: signalBody },
      performance.now(),
      transportFailure,
      0,
    );
    if (transportFailure(signalled) !== null) return ended('signal refused');
    await sleep(FIRST_LOOK_MS);
    const final = await readUntil(workflowId, (state) => state?.status !== 'RUNNING' && state?.status !== 'WAITING');
    if (final?.status === 'COMPLETED' && final.finalResult === true) counts.completed++;
    else ended(final === null ? 'state not readable' : `${final.status} (finalResult ${final.finalResult})`);
  }

  return {
    counts,
    inFlight: () => running.size,
    start(i, scheduledAt) {
      const one = life(i, scheduledAt)
        .catch((error) => ended(`load generator error: ${error.message}`))
        .finally(() => running.delete(one));
      running.add(one);
    },
    settled: () => Promise.all([...running]),
  };
}
