// Workflow benchmark: completed 4-step workflows per second against single evaluations of the same
// rule per second in the same run (what the workflow machinery costs per step), and the latency of
// GET /api/v1/workflows/{id}/events on a workflow with 10,000 events (from near the end and from 0).
// Starts the built service (role `all`, SQLite): run through `npm run bench:workflows` (QUICK=1 small).
import { randomUUID } from 'node:crypto';
import { createJwtKeyRing, createTokenSigner, parseJwtKeysSpec } from '../../dist/src/auth/index.js';
import { openSqliteStore } from '../../dist/src/store/index.js';
import { prepareBenchService, removeBenchService, startBenchService, TENANT } from '../support/bench-service.mjs';
import { stopChild } from '../support/child-process.mjs';
import { fmt, printTable } from '../support/table.mjs';

const quick = process.env.QUICK === '1';
const EVALUATIONS = quick ? 400 : 4000;
const WORKFLOWS = quick ? 100 : 1000;
const IN_FLIGHT = 32;
const LOG_EVENTS = quick ? 2000 : 10_000;
const READS = quick ? 5 : 20;
// The events endpoint answers at most this many events a read (a shorter page is not the end).
const EVENTS_PER_READ = 1000;

const MODULE = `Module bench.flow.

Rule check given n as Int, produce Bool:
  Return n is at least 0.

Workflow fourSteps given n as Int:
  Step one: check(n).
  Step two: check(n).
  Step three: check(n).
  Step four: check(n).
`;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs `count` tasks with at most IN_FLIGHT at once; resolves with the seconds taken. */
async function pooled(count, task) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

const prepared = await prepareBenchService('workflows');
const service = await startBenchService(prepared);
try {
  const signer = createTokenSigner(createJwtKeyRing(parseJwtKeysSpec(prepared.env.JWT_KEYS), 'JWT_KEYS'));
  const token = await signer.sign({ subject: 'bench', tenantId: TENANT, roles: ['MEMBER'], ttlSeconds: 3600 });
  // An active deploy needs ADMIN; everything else is a MEMBER's.
  const adminToken = await signer.sign({ subject: 'bench-admin', tenantId: TENANT, roles: ['ADMIN'], ttlSeconds: 3600 });
  const call = async (method, path, body, bearer = token) => {
    const response = await fetch(`${prepared.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'x-tenant-id': TENANT, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  await call('POST', '/api/v1/policies', { source: MODULE }, adminToken);

  // Warm-up: compile caches and connections.
  await pooled(64, (i) => call('POST', '/api/v1/policies/evaluate', { policyModule: 'bench.flow', policyFunction: 'check', context: { n: i } }));

  const evaluationSeconds = await pooled(EVALUATIONS, (i) =>
    call('POST', '/api/v1/policies/evaluate', { policyModule: 'bench.flow', policyFunction: 'check', context: { n: i } }),
  );
  const evaluationsPerSecond = EVALUATIONS / evaluationSeconds;

  // A workflow counts when its state is COMPLETED; each client polls its own until then.
  const workflowSeconds = await pooled(WORKFLOWS, async (i) => {
    const { workflowId } = await call('POST', '/api/v1/workflows', { policyModule: 'bench.flow', workflow: 'fourSteps', context: { n: i } });
    for (;;) {
      const state = await call('GET', `/api/v1/workflows/${workflowId}`);
      if (state.status === 'COMPLETED') return;
      if (state.status !== 'RUNNING') throw new Error(`workflow ${workflowId} ended ${state.status}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });
  const workflowsPerSecond = WORKFLOWS / workflowSeconds;
  const stepsPerSecond = workflowsPerSecond * 4;

  // A long log written straight into the store the service reads.
  const store = await openSqliteStore(prepared.storePath);
  const workflowId = randomUUID();
  try {
    await store.workflows.create(TENANT, {
      workflowId, policyModule: 'bench.flow', version: 1, workflow: 'fourSteps', context: { n: 1 }, actorId: 'bench', startedAt: new Date().toISOString(),
    });
    for (let from = 1; from <= LOG_EVENTS; from += 1000) {
      const events = Array.from({ length: Math.min(1000, LOG_EVENTS - from + 1) }, (_, i) => ({
        sequence: from + i, eventType: 'POLICY_EVALUATED', payload: { step: 'one', policyModule: 'bench.flow', policyFunction: 'check', result: true, executionTimeMs: 0 }, occurredAt: new Date().toISOString(),
      }));
      await store.workflows.append(TENANT, workflowId, events);
    }
  } finally {
    await store.close();
  }
  const readTimes = async (fromSeq) => {
    const times = [];
    for (let i = 0; i < READS; i += 1) {
      const started = performance.now();
      const events = await call('GET', `/api/v1/workflows/${workflowId}/events?fromSeq=${fromSeq}`);
      times.push(performance.now() - started);
      if (events.length !== Math.min(EVENTS_PER_READ, LOG_EVENTS - Math.max(1, fromSeq) + 1)) throw new Error(`fromSeq ${fromSeq}: ${events.length} events`);
    }
    return median(times);
  };
  const nearEnd = await readTimes(LOG_EVENTS - 9);
  const fromStart = await readTimes(0);

  console.log(`workflow benchmark${quick ? ' (QUICK)' : ''}`);
  console.log(
    `workload: the built service (role all, SQLite, ENGINE_THREADS ${prepared.env.ENGINE_THREADS ?? 'default'}), bearer tokens, ${IN_FLIGHT} clients; ` +
      `${fmt(EVALUATIONS)} evaluations of a one-line Bool rule, then ${fmt(WORKFLOWS)} workflows of four steps calling it (each client starts one ` +
      `and polls its state until COMPLETED); a ${fmt(LOG_EVENTS)}-event log read ${READS} times from near its end and from 0, one page of at most ${fmt(EVENTS_PER_READ)} events (median)`,
  );
  printTable(
    ['run', 'per second', 'vs single evaluations'],
    [
      ['single evaluations (baseline)', fmt(evaluationsPerSecond), '1.00×'],
      ['workflow steps (4 per workflow)', fmt(stepsPerSecond), `${fmt(stepsPerSecond / evaluationsPerSecond, 2)}×`],
      ['completed workflows', fmt(workflowsPerSecond, 1), '-'],
    ],
  );
  printTable(
    ['GET events', 'events returned', 'median ms'],
    [
      [`fromSeq ${LOG_EVENTS - 9}`, '10', fmt(nearEnd, 1)],
      ['fromSeq 0', fmt(Math.min(EVENTS_PER_READ, LOG_EVENTS)), fmt(fromStart, 1)],
    ],
  );
} finally {
  await stopChild(service);
  await removeBenchService(prepared);
}
