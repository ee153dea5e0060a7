// One tenant's hostile input costs only that tenant: each attack goes over real HTTP (real Redis,
// BullMQ, worker threads, SQLite) while the other tenant keeps sending ordinary requests, which
// must all succeed. Threads load dist/workers/evaluation-thread.js: `npx tsc -p tsconfig.json` first.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicyClient, type EvaluationOutcome, type PolicyClient } from '../../clients/typescript/src/index.js';
import { RUNAWAY_SOURCE } from './evaluation-support/policies.js';
import { failure, graphqlRoutes, startPoliciesHarness, type PoliciesHarness } from './policies-support/policies-harness.js';

const PRICING = `Module tenantb.pricing.

Rule price given amount as Int, produce Int:
  Return amount times 2.
`;

// Three nested loops: for a 78-element list, just under the default step budget, a costly but legitimate rule.
const SPIN = RUNAWAY_SOURCE;

// Appends the whole input list to an accumulator once per element of reps: the result grows as |xs| × |reps|.
const GROW = `Module tenanta.big.

Rule grow given xs as List of Int, reps as List of Int, produce List of List of Int:
  Let acc be [xs].
  For each i in reps:
    Let acc be append(acc, xs).
  Return acc.
`;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
/** The result of a successful evaluation; the error text of a failed one (so a failure never passes for a result). */
const resultOf = <T>(outcome: EvaluationOutcome<T>): T | string => (outcome.ok ? outcome.result : `failed: ${outcome.error}`);
/** JSON text of an array nested `levels` deep (written as text: JSON.stringify itself overflows on it). */
const nestedJson = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

let h: PoliciesHarness;
let attacker: PolicyClient;
let bystander: PolicyClient;

beforeAll(async () => {
  h = await startPoliciesHarness({ extraRoutes: graphqlRoutes });
  attacker = h.signed(h.tenants.a, 'MEMBER');
  bystander = h.signed(h.tenants.b, 'MEMBER');
}, 60_000);

afterAll(async () => {
  await h?.close();
});

/** The bystander's ordinary evaluations, sent while `attack` runs; every one must answer 200 with its result. */
async function whileAttacked<T>(attack: () => Promise<T>, count = 6): Promise<T> {
  const bystanderRuns = Promise.all(
    range(count).map(async (i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 20));
      return bystander.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: i }, locale: 'en-US' });
    }),
  );
  const [outcome, answers] = await Promise.all([attack(), bystanderRuns]);
  expect(answers.map((answer) => [answer.status, answer.ok ? answer.result : answer.error])).toEqual(range(count).map((i) => [200, i * 2]));
  return outcome;
}

describe('one tenant’s hostile input costs only that tenant', () => {
  it('refuses a body nested 6,000 levels with 400 before anything reads it, alone and in a batch', async () => {
    const body = `{"source":${JSON.stringify(PRICING)},"functionName":"price","context":{"amount":${nestedJson(6000)}}}`;
    const single = await whileAttacked(() => failure(attacker.request('POST', '/api/v1/policies/evaluate-source', body)));
    expect([single.status, single.code]).toEqual([400, 'ERR_REQUEST_JSON_TOO_DEEP']);
    const batch = await whileAttacked(() => failure(attacker.request('POST', '/api/v1/policies/evaluate-source/batch', `{"items":[${body}]}`)));
    expect([batch.status, batch.code]).toEqual([400, 'ERR_REQUEST_JSON_TOO_DEEP']);
  });

  it('refuses a context nested past CONTEXT_MAX_DEPTH with 400 naming the bound, and fails only that batch item', async () => {
    const body = `{"source":${JSON.stringify(PRICING)},"functionName":"price","context":{"amount":${nestedJson(100)}}}`;
    const single = await whileAttacked(() => failure(attacker.request('POST', '/api/v1/policies/evaluate-source', body)));
    expect(single.status).toBe(400);
    expect(single.code).toBe('ERR_EVALUATION_CONTEXT_TOO_DEEP');
    expect(single.body.error).toContain('CONTEXT_MAX_DEPTH');

    const items = `[{"source":${JSON.stringify(PRICING)},"functionName":"price","context":{"amount":${nestedJson(100)}}},{"source":${JSON.stringify(PRICING)},"functionName":"price","context":{"amount":4}}]`;
    const batch = await whileAttacked(() =>
      attacker.request<{ results: Array<Record<string, unknown>> }>('POST', '/api/v1/policies/evaluate-source/batch', `{"items":${items}}`),
    );
    expect(batch.body.results.map((item) => [item.result, item.code ?? null])).toEqual([
      [null, 'ERR_EVALUATION_CONTEXT_TOO_DEEP'],
      [8, null],
    ]);
  });

  it('caps a result of millions of integers inside the thread with an error naming the cap', async () => {
    const grown = await whileAttacked(() =>
      attacker.request<Record<string, unknown>>('POST', '/api/v1/policies/evaluate-source', {
        source: GROW,
        functionName: 'grow',
        context: { xs: range(5000), reps: range(4000) },
      }),
    );
    expect(grown.status).toBe(200);
    expect(grown.body).toMatchObject({ result: null, code: 'PL4006', error: 'PL4006 result is larger than 1048576 bytes (maxResultBytes)' });
    // Smaller results still come back whole.
    const small = await attacker.evaluateSource<number[][]>({ source: GROW, functionName: 'grow', context: { xs: range(3), reps: range(2) }, locale: 'en-US' });
    expect(resultOf(small)).toEqual([range(3), range(3), range(3)]);
  });

  it('caps a huge decision trace with an error naming the cap', async () => {
    const traced = await whileAttacked(() =>
      attacker.request<Record<string, unknown>>('POST', '/api/v1/policies/evaluate-source?trace=true', {
        source: GROW,
        functionName: 'grow',
        context: { xs: range(2000), reps: range(2000) },
      }),
    );
    expect(traced.status).toBe(200);
    expect(traced.body).toMatchObject({ result: null, code: 'PL4007', error: 'PL4007 decision trace is larger than 1048576 bytes (maxTraceBytes)' });
  });

  it('compiles a deploy in the engine, and a module with two 16,000-character names answers without stalling anyone', async () => {
    const jobsBefore = h.worker.stats().items;
    const long = (letter: string) => letter.repeat(16_000);
    const source = `Module tenanta.names.\n\nRule ${long('a')} given x as Int, produce Int:\n  Return ${long('b')}.\n`;
    const refused = await whileAttacked(() => failure(h.signed(h.tenants.a, 'ADMIN').request('POST', '/api/v1/policies', { source })));
    expect(refused.status).toBe(400);
    expect(refused.code).toBe('ERR_POLICY_COMPILE');
    expect(h.worker.stats().items).toBeGreaterThan(jobsBefore);
  });

  it('shares the threads: a single request of another tenant is answered while a 100-item batch of costly items runs', async () => {
    const items = range(100).map(() => ({ source: SPIN, functionName: 'spin', context: { xs: range(78) } }));
    const finished: string[] = [];
    const batch = attacker.evaluateBatch<number>(items).then((outcome) => {
      finished.push('batch');
      return outcome;
    });
    // Send once the batch's items wait for threads: in arrival order the single item would come after all of them.
    await expect.poll(() => h.pool.stats().queuedItems, { interval: 5, timeout: 10_000 }).toBeGreaterThan(20);
    const single = await bystander.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: 21 }, locale: 'en-US' });
    finished.push('single');
    expect(resultOf(single)).toBe(42);
    const outcome = await batch;
    expect(finished).toEqual(['single', 'batch']);
    expect(outcome.results.every((item) => resultOf(item) === 78 ** 3)).toBe(true);
  });

  it('runs another tenant’s item among the next tasks once it reaches the worker, though 60 costly requests came first', async () => {
    const singleTenant = h.tenants.b.tenantId;
    // The order in which the worker's pool finishes items, by tenant, and how many it had finished
    // when the single item reached it (the requests reach the worker over a few hundred ms: 61
    // connections, signatures, nonces). In arrival order the single item, sent last, would wait for
    // every costly item queued ahead of it; shared fairly, only for the tasks the threads hold and
    // one turn of the costly tenant. (The order of the answers is no measure of it: they share the
    // API's event loop with the costly answers, their records and writes, as fast as the machine is.)
    const finishedItems: string[] = [];
    let finishedWhenSingleArrived: number | undefined;
    const run = h.pool.run;
    h.pool.run = (batch, options = {}) => {
      if (batch.items.some((item) => item.tenantId === singleTenant)) finishedWhenSingleArrived ??= finishedItems.length;
      return run(batch, {
        ...options,
        onResult(position, result) {
          finishedItems.push(batch.items[position]!.tenantId);
          options.onResult?.(position, result);
        },
      });
    };
    try {
      const costly = range(60).map(() => attacker.evaluateSource<number>({ source: SPIN, functionName: 'spin', context: { xs: range(78) }, locale: 'en-US' }));
      const single = bystander.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: 5 }, locale: 'en-US' });
      expect(resultOf(await single)).toBe(10);
      expect((await Promise.all(costly)).every((outcome) => resultOf(outcome) === 78 ** 3)).toBe(true);
    } finally {
      h.pool.run = run;
    }
    expect(finishedItems.filter((tenantId) => tenantId === h.tenants.a.tenantId)).toHaveLength(60);
    // At most: the two threads' tasks (4 items each while the costly tenant's cost is not known yet,
    // 1 once it is) and the costly tenant's next task; in arrival order, every costly item not run yet.
    const finishedWhileItWaited = finishedItems.indexOf(singleTenant) - finishedWhenSingleArrived!;
    expect(finishedWhileItWaited).toBeGreaterThanOrEqual(0);
    expect(finishedWhileItWaited).toBeLessThan(13);
  });

  it('does not run what a client that hung up no longer waits for', async () => {
    const impatient = createPolicyClient({ baseUrl: h.baseUrl, tenantId: h.tenants.a.tenantId, role: 'MEMBER', secret: h.tenants.a.secret, retries: 0, timeoutMs: 200 });
    const cancelledBefore = h.pool.stats().cancelledItems;
    const itemsBefore = h.pool.stats().items;
    // 150³ steps an item (tens of ms): the batch outlasts the client's 200 ms however fast the machine.
    const items = range(100).map(() => ({ source: SPIN, functionName: 'spin', context: { xs: range(150) } }));
    await expect(impatient.evaluateBatch(items)).rejects.toThrow(/got no answer/);
    // The worker hears of it and drops the items not started; the rest finish within their limits.
    await expect.poll(() => h.pool.stats().cancelledItems - cancelledBefore, { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => h.pool.stats().queuedItems, { timeout: 10_000 }).toBe(0);
    const settled = h.pool.stats().items - itemsBefore;
    expect(settled).toBeLessThanOrEqual(100);
    // A request after that is answered as usual.
    const after = await bystander.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: 1 }, locale: 'en-US' });
    expect(resultOf(after)).toBe(2);
  });

  it('answers a GraphQL query nested 2,400 levels with a 400 depth error, not a stack overflow', async () => {
    // About 7 KB, well under the document size limit.
    const query = `{${'a{'.repeat(2400)}b${'}'.repeat(2400)}}`;
    const refused = await whileAttacked(() => failure(attacker.request('POST', '/graphql', { query })));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errors: [{ extensions: { code: 'ERR_GRAPHQL_DEPTH_LIMIT' } }] });
  });

  it('refuses compressed bodies with 400, valid or corrupt, without inflating them', async () => {
    const body = JSON.stringify({ source: PRICING, functionName: 'price', context: { amount: 1 } });
    for (const bytes of [gzipSync(body), Buffer.from('not gzip at all')]) {
      const refused = await whileAttacked(() =>
        failure(attacker.request('POST', '/api/v1/policies/evaluate-source', bytes, { headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' } })),
      );
      expect([refused.status, refused.code]).toEqual([400, 'ERR_REQUEST_ENCODING_UNSUPPORTED']);
    }
  });

  it('sends another tenant’s item to the worker at once, though 40 batches of 100 items came first', async () => {
    // Batched into jobs in arrival order, the single item would wait in the queue behind every job
    // beyond the worker's concurrency (4,000 items make 63 jobs, a worker takes 32); the dispatcher
    // keeps a few batches' worth of one tenant on their way and sends the others' items in turn.
    const singleTenant = h.tenants.b.tenantId;
    let finished = 0;
    let finishedWhenSingleArrived: number | undefined;
    const run = h.pool.run;
    h.pool.run = (batch, options = {}) => {
      if (batch.items.some((item) => item.tenantId === singleTenant)) finishedWhenSingleArrived ??= finished;
      return run(batch, {
        ...options,
        onResult(position, result) {
          finished++;
          options.onResult?.(position, result);
        },
      });
    };
    try {
      // A module of its own: 4,000 runs make its compiled program hot in the threads, which would
      // speed up the other tests' costly rule.
      const flood = SPIN.replace('Module test.runaway.', 'Module test.flood.');
      const items = range(100).map(() => ({ source: flood, functionName: 'spin', context: { xs: range(40) } }));
      const floods = range(40).map(() => attacker.evaluateBatch<number>(items));
      await expect.poll(() => h.pool.stats().queuedItems, { interval: 5, timeout: 10_000 }).toBeGreaterThan(20);
      const single = await bystander.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: 4 }, locale: 'en-US' });
      expect(resultOf(single)).toBe(8);
      for (const outcome of await Promise.all(floods)) expect(outcome.results.every((item) => resultOf(item) === 40 ** 3)).toBe(true);
    } finally {
      h.pool.run = run;
    }
    // In arrival order, about 2,000 of the flood's items (its jobs past the worker's 32) before it.
    expect(finishedWhenSingleArrived).toBeLessThan(1000);
  }, 120_000);
});
