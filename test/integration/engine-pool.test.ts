// Real worker threads running the real interpreter. Needs `npx tsc -p tsconfig.json` first: threads load
// dist/workers/evaluation-thread.js.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createEnginePool,
  deserializeResult,
  EngineFailureCode,
  EnginePoolClosedError,
  toBatch,
  type CompileRequest,
  type EnginePool,
  type EnginePoolOptions,
  type EvaluateRequest,
  type EvaluationBatch,
  type ItemResult,
  type SerializedItemResult,
} from '../../src/engine/index.js';
import { describeDiagnostic } from '../../src/language/diagnostics/index.js';
import { evaluateRequest, evaluation, runOnPool } from '../support/index.js';
import { RUNAWAY_SOURCE } from './evaluation-support/policies.js';

const QUICK = `Module test.quick.

Rule double given x as Int, produce Int:
  Return x times 2.

Rule check given x as Int, produce Int:
  If x is greater than 100:
    Fail with "too large".
  Return x.
`;

const GERMAN = `Modul test.quick.

Regel double gegeben x als Ganzzahl, liefert Ganzzahl:
  Liefere x mal 2.
`;

// Three nested loops: 10^9 turns for 1,000 elements, so only the wall-time limit ends it.
const CUBIC = RUNAWAY_SOURCE;

const ECHO = `Module test.echo.

Rule echo given s as Text, produce Text:
  Return s.
`;

const BROKEN = 'Module broken.\n\nRule f produce Int\n  Return 1.\n';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const quick = (functionName: string, x: unknown, extra: Partial<EvaluateRequest> = {}) => evaluateRequest(QUICK, functionName, { x }, extra);
const spin = (length: number, extra: Partial<EvaluateRequest> = {}) => evaluateRequest(CUBIC, 'spin', { xs: range(length) }, extra);
const compileRequest = (source: string, extra: Partial<CompileRequest> = {}): CompileRequest => ({
  kind: 'compile',
  tenantId: 'tenant-a',
  source,
  locale: 'en-US',
  ...extra,
});

const valueOf = (result: ItemResult | undefined) => {
  const outcome = evaluation(result);
  return outcome.ok ? outcome.value : null;
};
const codeOf = (result: ItemResult | undefined) => (result && !result.ok ? result.code : null);
const decodeAll = async (run: { results: Promise<SerializedItemResult[]> }) => (await run.results).map(deserializeResult);
/** Items that ran on a thread (every run item is a cache hit or a miss). */
const ranItems = (engine: EnginePool) => engine.stats().cacheHits + engine.stats().cacheMisses;

let pools: EnginePool[] = [];
function pool(options: EnginePoolOptions): EnginePool {
  const created = createEnginePool(options);
  pools.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()));
  pools = [];
});

describe('engine pool', () => {
  it('runs a batch in input order and fails each bad item on its own, with its code', async () => {
    const engine = pool({ threads: 2 });
    const results = await runOnPool(engine, [
      quick('double', 21),
      quick('check', 500),
      quick('nope', 1),
      quick('double', 1, { locale: 'xx-YY' }),
      quick('double', 1, { source: BROKEN }),
      quick('double', 'seven'),
      quick('double', 4, { locale: 'en' }),
      quick('check', 7),
    ]);

    expect(results.map((r) => [r.kind, r.ok])).toEqual([
      ['evaluated', true],
      ['evaluated', false],
      ['evaluated', false],
      ['evaluated', false],
      ['evaluated', false],
      ['evaluated', false],
      ['evaluated', true],
      ['evaluated', true],
    ]);
    expect(results.map(valueOf)).toEqual([42, null, null, null, null, null, 8, 7]);
    expect(results.map((r) => codeOf(r)?.slice(0, 3) ?? null)).toEqual([null, 'PL3', 'PL6', 'PL6', 'PL1', 'PL5', null, null]);
    expect(results.slice(1, 4).map(codeOf)).toEqual(['PL3004', 'PL6002', 'PL6001']);
    for (const result of results) {
      const outcome = evaluation(result);
      if (outcome.ok) {
        expect(outcome.moduleName).toBe('test.quick');
      } else {
        const first = outcome.diagnostics.find((d) => d.severity === 'error')!;
        expect(outcome.code).toBe(first.code);
        expect(outcome.error).toBe(describeDiagnostic(first));
      }
      expect(outcome.executionTimeMs).toBeGreaterThanOrEqual(0);
    }
    // A syntax error carries its position in the error string; a runtime failure names the module that ran.
    const syntax = evaluation(results[4]);
    expect(syntax.ok ? null : syntax.error).toMatch(/^PL1\d{3} .+ at \d+:\d+$/);
    expect(results[1]).toMatchObject({ moduleName: 'test.quick' });
  });

  it('returns the decision trace only when an item asks for it', async () => {
    const engine = pool({ threads: 1 });
    const [traced, plain] = (await runOnPool(engine, [quick('check', 7, { trace: true }), quick('check', 7)])).map(evaluation);
    expect(traced!.trace?.length).toBeGreaterThan(0);
    expect(traced!.trace?.at(-1)).toMatchObject({ kind: 'return', value: 7 });
    expect(plain).not.toHaveProperty('trace');
  });

  it('holds results to maxResultBytes and to the per-item outputLimitBytes', async () => {
    const engine = pool({ threads: 1, maxResultBytes: 4096 });
    const echo = (s: string, extra: Partial<EvaluateRequest> = {}) => evaluateRequest(ECHO, 'echo', { s }, extra);
    const results = await runOnPool(engine, [echo('a'.repeat(4000)), echo('b'.repeat(5000)), echo('c'.repeat(200), { outputLimitBytes: 100 })]);
    expect(results.map((r) => codeOf(r) ?? 'ok')).toEqual(['ok', 'PL4006', 'PL4006']);
    expect(valueOf(results[0])).toBe('a'.repeat(4000));
    expect(results[1]).toMatchObject({ moduleName: 'test.echo', error: 'PL4006 result is larger than 4096 bytes (maxResultBytes)' });
    expect(results[2]).toMatchObject({ error: 'PL4006 result is larger than 100 bytes (maxResultBytes)' });
  });

  it('fails a malformed item alone with ERR_EVALUATION_ITEM_INVALID', async () => {
    const engine = pool({ threads: 1 });
    const batch = toBatch([quick('double', 1), quick('double', 2), quick('double', 3), quick('double', 4)]);
    const items = batch.items as unknown as Array<Record<string, unknown>>;
    delete items[0]!.tenantId;
    items[2]!.sourceIndex = 7;
    items.push(null as never, { ...items[1], kind: 'explode' });
    const results = await decodeAll(engine.run(batch));

    expect(results.map(codeOf)).toEqual([
      EngineFailureCode.ITEM_INVALID,
      null,
      EngineFailureCode.ITEM_INVALID,
      null,
      EngineFailureCode.ITEM_INVALID,
      EngineFailureCode.ITEM_INVALID,
    ]);
    expect(results[0]).toMatchObject({ ok: false, error: 'invalid evaluation item: `tenantId` must be a non-empty string', diagnostics: [] });
    expect(results[2]).toMatchObject({ ok: false, error: 'invalid evaluation item: `sourceIndex` must point into `sources`' });
    expect([valueOf(results[1]), valueOf(results[3])]).toEqual([4, 8]);
    expect(ranItems(engine)).toBe(2);
  });

  it('compiles a module: its summary with function signatures, or the diagnostics that stop it', async () => {
    const engine = pool({ threads: 1 });
    const [ok, german, broken, unsupported] = await runOnPool(engine, [
      compileRequest(QUICK),
      compileRequest(GERMAN, { locale: 'de' }),
      compileRequest(BROKEN),
      compileRequest(QUICK, { locale: 'xx-YY' }),
    ]);

    expect(ok).toEqual({
      kind: 'compiled',
      ok: true,
      module: {
        moduleName: 'test.quick',
        locale: 'en-US',
        functions: [
          { name: 'double', params: [{ name: 'x', type: 'Int' }], returnType: 'Int' },
          { name: 'check', params: [{ name: 'x', type: 'Int' }], returnType: 'Int' },
        ],
        workflows: [],
      },
      diagnostics: [],
      executionTimeMs: expect.any(Number),
    });
    expect(german).toMatchObject({ kind: 'compiled', ok: true, module: { moduleName: 'test.quick', locale: 'de-DE' } });
    expect(broken).toMatchObject({ kind: 'compiled', ok: false, code: expect.stringMatching(/^PL1\d{3}$/) });
    if (broken?.ok !== false) throw new Error('expected a failure');
    expect(broken.diagnostics.length).toBeGreaterThan(0);
    expect(broken.error).toBe(describeDiagnostic(broken.diagnostics.find((d) => d.severity === 'error')!));
    expect(unsupported).toMatchObject({ kind: 'compiled', ok: false, code: 'PL6001' });
    // A compile and an evaluation of the same source share the tenant's cached program.
    const before = engine.stats().cacheHits;
    expect(valueOf((await runOnPool(engine, [quick('double', 2)]))[0])).toBe(4);
    expect(engine.stats().cacheHits).toBe(before + 1);
  });

  it('ends a runaway evaluation with PL4004, keeps the rest of its batch, and keeps serving', async () => {
    const engine = pool({ threads: 2, taskTimeoutMs: 300, stepBudget: Number.MAX_SAFE_INTEGER, maxItemsPerTask: 8 });
    const results = await runOnPool(engine, [quick('double', 1), quick('double', 2), spin(1000), quick('double', 3), quick('check', 500)]);

    expect(results[2]).toMatchObject({
      kind: 'evaluated',
      ok: false,
      code: 'PL4004',
      error: 'PL4004 evaluation timed out after 300 ms',
      diagnostics: [{ code: 'PL4004', severity: 'error', message: 'evaluation timed out after 300 ms', span: null }],
    });
    expect(results[2]!.executionTimeMs).toBeGreaterThanOrEqual(300);
    expect(results.map(valueOf)).toEqual([2, 4, null, 6, null]);
    expect(codeOf(results[4])).toBe('PL3004');
    expect(engine.stats().timedOutItems).toBe(1);

    const next = await runOnPool(engine, range(20).map((x) => quick('double', x)));
    expect(next.map(valueOf)).toEqual(range(20).map((x) => x * 2));
    expect(engine.threadWorkers()).toHaveLength(2);
  });

  it('holds every item of a task to its own time limit', async () => {
    const engine = pool({ threads: 1, taskTimeoutMs: 300, stepBudget: Number.MAX_SAFE_INTEGER, maxItemsPerTask: 8 });
    const results = await runOnPool(engine, [spin(1000), quick('double', 1), spin(1000), quick('double', 2)]);
    expect(results.map((r) => codeOf(r) ?? valueOf(r))).toEqual(['PL4004', 2, 'PL4004', 4]);
    expect(engine.stats().timedOutItems).toBe(2);
  });

  it('replaces a thread killed mid-load and still answers every item', async () => {
    const engine = pool({ threads: 2, taskTimeoutMs: 10_000, stepBudget: Number.MAX_SAFE_INTEGER, maxItemsPerTask: 4 });
    const lengths = range(24).map((i) => 140 + (i % 5));
    const running = runOnPool(engine, lengths.map((n) => spin(n)));
    // Kill a thread once it is running an item (threadFailures below proves it was busy).
    await vi.waitFor(() => expect(engine.stats().items).toBeGreaterThan(0), { timeout: 10_000, interval: 5 });
    await engine.threadWorkers()[0]!.terminate();
    const results = await running;

    expect(results.map(valueOf)).toEqual(lengths.map((n) => n ** 3));
    expect(engine.stats().threadFailures).toBeGreaterThanOrEqual(1);
    const after = await runOnPool(engine, [quick('double', 5), quick('double', 6)]);
    expect(after.map(valueOf)).toEqual([10, 12]);
    expect(engine.threadWorkers()).toHaveLength(2);
  });

  it('compiles a (locale, source) once per tenant and thread, and serves repeats from the cache', async () => {
    const engine = pool({ threads: 1 });
    for (let i = 0; i < 5; i++) await runOnPool(engine, [quick('double', i)]);
    // An alias of the same locale shares the entry; another locale is another program.
    await runOnPool(engine, [quick('double', 9, { locale: 'EN_us' })]);
    await runOnPool(engine, [quick('double', 9, { locale: 'de-DE', source: GERMAN })]);
    await runOnPool(engine, [quick('double', 1), quick('check', 2), quick('double', 3, { locale: 'de', source: GERMAN })]);
    expect(engine.stats()).toMatchObject({ cacheMisses: 2, cacheHits: 8 });
    // Another tenant compiles the same source for itself.
    await runOnPool(engine, [quick('double', 1, { tenantId: 'tenant-b' }), quick('double', 1, { tenantId: 'tenant-b' })]);
    expect(engine.stats()).toMatchObject({ cacheMisses: 3, cacheHits: 9 });
  });

  it('evicts the least recently used program beyond the cache size', async () => {
    const engine = pool({ threads: 1, cacheSize: 1 });
    const other = QUICK.replace('test.quick', 'test.other');
    await runOnPool(engine, [quick('double', 1)]);
    await runOnPool(engine, [quick('double', 1, { source: other })]);
    await runOnPool(engine, [quick('double', 1)]);
    expect(engine.stats()).toMatchObject({ cacheMisses: 3, cacheHits: 0 });
  });

  it("keeps a tenant's program cached while another tenant compiles more sources than the cache holds", async () => {
    const engine = pool({ threads: 1, cacheSize: 2 });
    const tenantB = { tenantId: 'tenant-b' };
    await runOnPool(engine, [quick('double', 1, tenantB)]);
    const sources = range(6).map((i) => QUICK.replace('test.quick', `test.many${i}`));
    await runOnPool(engine, sources.map((source) => quick('double', 1, { source })));
    expect(engine.stats()).toMatchObject({ cacheMisses: 7, cacheHits: 0 });

    expect(valueOf((await runOnPool(engine, [quick('double', 2, tenantB)]))[0])).toBe(4);
    expect(engine.stats()).toMatchObject({ cacheMisses: 7, cacheHits: 1 });
  });
});

describe('engine pool: fair sharing among tenants', () => {
  it("answers a tenant's cheap item while another tenant's expensive batch is still queued", async () => {
    const engine = pool({ threads: 1, taskTimeoutMs: 30_000, stepBudget: Number.MAX_SAFE_INTEGER });
    const completions: string[] = [];
    const heavy = engine.run(toBatch(range(12).map(() => spin(120, { tenantId: 'tenant-heavy' }))));
    void heavy.results.then(() => completions.push('heavy'));
    const light = engine.run(toBatch([quick('double', 21, { tenantId: 'tenant-light' })]));
    const [lightResult] = (await light.results).map(deserializeResult);
    completions.push('light');
    const queuedWhenLightAnswered = engine.stats().queuedItems;

    expect(valueOf(lightResult)).toBe(42);
    expect(queuedWhenLightAnswered).toBeGreaterThan(0);
    const heavyResults = (await heavy.results).map(deserializeResult);
    expect(completions).toEqual(['light', 'heavy']);
    expect(heavyResults.map(valueOf)).toEqual(range(12).map(() => 120 ** 3));
  });

  it('after measuring a costly tenant, sends its items one per task while a cheap tenant shares tasks', async () => {
    const engine = pool({ threads: 1, taskTimeoutMs: 30_000, stepBudget: Number.MAX_SAFE_INTEGER, taskSliceMs: 5 });
    // Teach the pool what each tenant costs.
    await runOnPool(engine, [spin(120, { tenantId: 'costly' })]);
    await runOnPool(engine, range(4).map((x) => quick('double', x, { tenantId: 'cheap' })));
    const tasksBefore = engine.stats().tasks;
    const costly = runOnPool(engine, range(4).map(() => spin(120, { tenantId: 'costly' })));
    const cheap = runOnPool(engine, range(40).map((x) => quick('double', x, { tenantId: 'cheap' })));
    const [costlyResults, cheapResults] = await Promise.all([costly, cheap]);

    expect(costlyResults.map(valueOf)).toEqual(range(4).map(() => 120 ** 3));
    expect(cheapResults.map(valueOf)).toEqual(range(40).map((x) => x * 2));
    const tasks = engine.stats().tasks - tasksBefore;
    // Four tasks for the costly tenant's four items, and far fewer than forty for the cheap tenant's.
    expect(tasks).toBeGreaterThanOrEqual(5);
    expect(tasks).toBeLessThan(4 + 40);
  });
});

describe('engine pool: cancellation and closing', () => {
  /** Occupies the single thread of `engine` until its time limit ends the item. */
  function occupy(engine: EnginePool) {
    return engine.run(toBatch([spin(1000, { tenantId: 'tenant-busy' })]));
  }

  it('answers cancelled queued items ERR_EVALUATION_CANCELLED and never runs them', async () => {
    const engine = pool({ threads: 1, taskTimeoutMs: 400, stepBudget: Number.MAX_SAFE_INTEGER });
    const busy = occupy(engine);
    const run = engine.run(toBatch(range(5).map((x) => quick('double', x))));
    expect(engine.stats().queuedItems).toBe(5);
    run.cancel();
    const results = await decodeAll(run);

    expect(results.map(codeOf)).toEqual(range(5).map(() => EngineFailureCode.CANCELLED));
    expect(results[0]).toMatchObject({ kind: 'evaluated', ok: false, diagnostics: [] });
    expect(engine.stats()).toMatchObject({ cancelledItems: 5, queuedItems: 0 });
    expect(codeOf((await decodeAll(busy))[0])).toBe('PL4004');
    expect(ranItems(engine)).toBe(0); // only the runaway ran, and it timed out before reporting
    expect(engine.stats().items).toBe(6);
  });

  it('cancels only the positions asked for', async () => {
    const engine = pool({ threads: 1, taskTimeoutMs: 400, stepBudget: Number.MAX_SAFE_INTEGER });
    const busy = occupy(engine);
    const run = engine.run(toBatch([quick('double', 1), quick('double', 2), compileRequest(QUICK), quick('double', 4)]));
    run.cancel([1, 2, 99]);
    const results = await decodeAll(run);

    expect(results.map((r) => codeOf(r) ?? r.kind)).toEqual(['evaluated', EngineFailureCode.CANCELLED, EngineFailureCode.CANCELLED, 'evaluated']);
    expect(results[2]).toMatchObject({ kind: 'compiled' });
    expect([valueOf(results[0]), valueOf(results[3])]).toEqual([2, 8]);
    expect(engine.stats().cancelledItems).toBe(2);
    await busy.results;
    // Cancelling answered items changes nothing.
    run.cancel();
    expect(engine.stats().cancelledItems).toBe(2);
  });

  it('lets a running item finish instead of restarting its thread', async () => {
    const engine = pool({ threads: 1, taskTimeoutMs: 30_000, stepBudget: Number.MAX_SAFE_INTEGER });
    const run = engine.run(toBatch([spin(120)]));
    await vi.waitFor(() => expect(engine.stats().tasks).toBe(1), { interval: 5 });
    const threadsBefore = engine.threadWorkers().map((w) => w.threadId);
    run.cancel();
    expect(codeOf((await decodeAll(run))[0])).toBe(EngineFailureCode.CANCELLED);
    // The thread goes on to serve the next batch.
    expect(valueOf((await runOnPool(engine, [quick('double', 3)]))[0])).toBe(6);
    expect(engine.threadWorkers().map((w) => w.threadId)).toEqual(threadsBefore);
    expect(engine.stats().threadFailures).toBe(0);
  });

  it('rejects queued and running batches with EnginePoolClosedError on close, and refuses new ones', async () => {
    const engine = pool({ threads: 1, taskTimeoutMs: 30_000, stepBudget: Number.MAX_SAFE_INTEGER });
    const running = engine.run(toBatch([spin(100)]));
    const queued = engine.run(toBatch([quick('double', 1)]));
    await vi.waitFor(() => expect(engine.stats().tasks).toBe(1), { interval: 5 });
    const outcomes = Promise.allSettled([running.results, queued.results]);
    await engine.close();
    const settled = await outcomes;
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    for (const s of settled) expect((s as PromiseRejectedResult).reason).toBeInstanceOf(EnginePoolClosedError);
    await expect(engine.run(toBatch([quick('double', 1)])).results).rejects.toBeInstanceOf(EnginePoolClosedError);
  });

  it('answers an empty batch at once', async () => {
    const engine = pool({ threads: 1 });
    const empty: EvaluationBatch = { sources: [], items: [] };
    expect(await engine.run(empty).results).toEqual([]);
  });
});
