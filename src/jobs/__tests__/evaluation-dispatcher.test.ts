import { describe, expect, it } from 'vitest';
import type { EnginePool, EvaluationItem, ItemResult } from '../../engine/index.js';
import { DispatcherClosedError } from '../dispatch-errors.js';
import { createEvaluationDispatcher } from '../evaluation-dispatcher.js';

// The pool is the edge of the dispatcher: a stand-in records each batch and answers per item.
function recordingPool(answer: (item: EvaluationItem) => ItemResult | Error = echo) {
  const batches: EvaluationItem[][] = [];
  const pool = {
    size: 1,
    taskTimeoutMs: 1000,
    async evaluateMany(items: readonly EvaluationItem[]) {
      batches.push([...items]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const results = items.map(answer);
      const failure = results.find((r) => r instanceof Error);
      if (failure) throw failure;
      return results as ItemResult[];
    },
  } as unknown as EnginePool;
  return { pool, batches };
}

function echo(item: EvaluationItem): ItemResult {
  return { ok: true, value: item.context as never, diagnostics: [], error: null, executionTimeMs: 0 };
}

const item = (n: number): EvaluationItem => ({ source: 'Module a.', locale: 'en-US', functionName: 'f', context: n });

describe('evaluation dispatcher (coalescing)', () => {
  it('coalesces concurrent calls into one batch and answers each caller with its own result', async () => {
    const { pool, batches } = recordingPool();
    const dispatcher = createEvaluationDispatcher({ pool, maxBatchItems: 100, flushMs: 5 });
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => dispatcher.evaluate(item(n))));
    expect(results.map((r) => r.value)).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toHaveLength(1);
    expect(dispatcher.stats()).toEqual({ batches: 1, items: 5, inFlight: 0 });
    await dispatcher.close();
  });

  it('sends a batch as soon as it is full', async () => {
    const { pool, batches } = recordingPool();
    const dispatcher = createEvaluationDispatcher({ pool, maxBatchItems: 3, flushMs: 60_000 });
    const results = await dispatcher.evaluateMany([1, 2, 3, 4, 5, 6].map(item));
    expect(results.map((r) => r.value)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(batches.map((b) => b.map((i) => i.context))).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    await dispatcher.close();
  });

  it('while maxInFlight batches wait for answers, holds the next batch and lets it grow', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batches: number[][] = [];
    const pool = {
      async evaluateMany(items: readonly EvaluationItem[]) {
        batches.push(items.map((i) => i.context as number));
        if (batches.length === 1) await gate;
        return items.map(echo);
      },
    } as unknown as EnginePool;
    const dispatcher = createEvaluationDispatcher({ pool, maxBatchItems: 4, flushMs: 0, maxInFlight: 1 });
    const first = dispatcher.evaluate(item(1));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(dispatcher.stats()).toMatchObject({ batches: 1, inFlight: 1 });
    // Due on the next turn, but the one batch allowed on its way is still unanswered.
    const waiting = [2, 3].map((n) => dispatcher.evaluate(item(n)));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(batches).toEqual([[1]]);
    // A full batch goes at once all the same.
    const full = [4, 5, 6, 7].map((n) => dispatcher.evaluate(item(n)));
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
    const last = dispatcher.evaluate(item(8));
    release();
    const results = await Promise.all([first, ...waiting, ...full, last]);
    expect(results.map((r) => r.value)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(batches).toEqual([[1], [2, 3, 4, 5], [6, 7, 8]]);
    expect(dispatcher.stats()).toEqual({ batches: 3, items: 8, inFlight: 0 });
    await dispatcher.close();
  });

  it('refuses a maxInFlight that is not a positive integer or Infinity', () => {
    const { pool } = recordingPool();
    expect(() => createEvaluationDispatcher({ pool, maxInFlight: 0 })).toThrow(RangeError);
    expect(() => createEvaluationDispatcher({ pool, maxInFlight: 1.5 })).toThrow(RangeError);
    expect(() => createEvaluationDispatcher({ pool, maxInFlight: Infinity })).not.toThrow();
  });

  it('flushes on the next turn of the event loop when flushMs is 0', async () => {
    const { pool, batches } = recordingPool();
    const dispatcher = createEvaluationDispatcher({ pool, maxBatchItems: 10, flushMs: 0 });
    const results = await Promise.all([dispatcher.evaluate(item(1)), dispatcher.evaluateMany([item(2), item(3)])]);
    expect(results).toEqual([echo(item(1)), [echo(item(2)), echo(item(3))]]);
    expect(batches).toHaveLength(1);
    await dispatcher.close();
  });

  it('rejects every caller of a batch whose transport failed, and only them', async () => {
    const boom = new Error('engine down');
    const { pool } = recordingPool((i) => (i.context === 'bad' ? boom : echo(i)));
    const dispatcher = createEvaluationDispatcher({ pool, maxBatchItems: 2, flushMs: 60_000 });
    const outcomes = await Promise.allSettled([item(1), { ...item(0), context: 'bad' }, item(3), item(4)].map((i) => dispatcher.evaluate(i)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBe(boom);
    await dispatcher.close();
  });

  it('refuses work after close', async () => {
    const { pool } = recordingPool();
    const dispatcher = createEvaluationDispatcher({ pool });
    await dispatcher.close();
    await expect(dispatcher.evaluate(item(1))).rejects.toBeInstanceOf(DispatcherClosedError);
  });

  it('needs a connection or a pool and sane limits', () => {
    expect(() => createEvaluationDispatcher({})).toThrow(/connection/);
    const { pool } = recordingPool();
    expect(() => createEvaluationDispatcher({ pool, maxBatchItems: 0 })).toThrow(/maxBatchItems/);
    expect(() => createEvaluationDispatcher({ pool, flushMs: -1 })).toThrow(/flushMs/);
    expect(() => createEvaluationDispatcher({ pool, responseTimeoutMs: 0 })).toThrow(/responseTimeoutMs/);
  });
});
