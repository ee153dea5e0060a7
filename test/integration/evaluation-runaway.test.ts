// A runaway policy (nested loops, step budget raised so only the wall-time limit stops it) costs
// one thread restart while other requests are in flight; they and the next requests succeed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteTarget } from '../support/index.js';
import { startEvaluationHarness, type EvaluationHarness } from './evaluation-support/evaluation-harness.js';
import { GERMAN_SOURCE, PRICING_SOURCE, RUNAWAY_SOURCE, priceContext, runawayContext } from './evaluation-support/policies.js';

const TIMEOUT_MS = 300;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('a runaway policy under load', () => {
  const target = sqliteTarget();
  let h: EvaluationHarness;

  beforeAll(async () => {
    h = await startEvaluationHarness({
      openStore: () => target.connect(),
      worker: { threads: 2, taskTimeoutMs: TIMEOUT_MS, stepBudget: 1_000_000_000_000 },
    });
  });

  afterAll(async () => {
    await h?.close();
    await target.dispose();
  });

  const price = (i: number) => h.client().evaluateSource({ source: PRICING_SOURCE, functionName: 'price', context: priceContext(30, 800, i) });

  it('kills the thread running it, and every other request in flight still succeeds', async () => {
    await Promise.all(range(8).map(price));
    const threadsBefore = new Set(h.pool!.threadWorkers().map((w) => w.threadId));
    const timedOutBefore = h.pool!.stats().timedOutItems;

    const before = range(30).map(price);
    const runaway = h.client().evaluateSource({ source: RUNAWAY_SOURCE, functionName: 'spin', context: runawayContext() });
    const during = range(30).map((i) => price(100 + i));
    const [first, stuck, second] = await Promise.all([Promise.all(before), runaway, Promise.all(during)]);

    expect(stuck).toMatchObject({ status: 200, ok: false, code: 'PL4004', error: `PL4004 evaluation timed out after ${TIMEOUT_MS} ms` });
    expect(first.map((o) => (o.ok ? o.result : o.error))).toEqual(range(30).map((i) => i * 2));
    expect(second.map((o) => (o.ok ? o.result : o.error))).toEqual(range(30).map((i) => (100 + i) * 2));
    expect(h.pool!.stats().timedOutItems).toBe(timedOutBefore + 1);

    // The next requests succeed, on a pool in which the killed thread has been replaced.
    const next = await Promise.all([
      ...range(20).map((i) => price(1000 + i)),
      h.client().evaluateSource({ source: GERMAN_SOURCE, functionName: 'doppelt', context: { x: 4 }, locale: 'de' }),
    ]);
    expect(next.map((o) => (o.ok ? o.result : o.error))).toEqual([...range(20).map((i) => (1000 + i) * 2), 8]);
    const threadsAfter = h.pool!.threadWorkers().map((w) => w.threadId);
    expect(threadsAfter).toHaveLength(2);
    expect(threadsAfter.some((id) => !threadsBefore.has(id))).toBe(true);
  });

  it('audits the timed-out evaluation like any other', async () => {
    const records = await h.sourceEvaluations();
    const failed = records.filter((r) => r.payload.success === false);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      policyModule: null,
      policyFunction: 'spin',
      payload: { error: `PL4004 evaluation timed out after ${TIMEOUT_MS} ms` },
    });
    expect(records).toHaveLength(8 + 60 + 1 + 21);
  });
});
