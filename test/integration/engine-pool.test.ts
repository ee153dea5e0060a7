// Real worker threads running the real interpreter. Needs `npx tsc -p tsconfig.json` first: threads load
// dist/workers/evaluation-thread.js.
import { afterEach, describe, expect, it } from 'vitest';
import { createEnginePool, type EnginePool, type EnginePoolOptions, type EvaluationItem } from '../../src/engine/index.js';
import { describeDiagnostic } from '../../src/language/diagnostics/index.js';

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

// Cubic in the list length: 1,000 elements is 10^9 loop turns, far beyond any test's time limit.
const CUBIC = `Module test.loops.

Rule spin given xs as List of Int, produce Int:
  Let total be 0.
  For each a in xs:
    For each b in xs:
      For each c in xs:
        Let total be total plus 1.
  Return total.
`;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const quick = (functionName: string, x: unknown, extra: Partial<EvaluationItem> = {}): EvaluationItem => ({
  source: QUICK,
  locale: 'en-US',
  functionName,
  context: { x },
  ...extra,
});
const spin = (length: number): EvaluationItem => ({ source: CUBIC, locale: 'en-US', functionName: 'spin', context: { xs: range(length) } });

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

function firstErrorCode(result: { diagnostics: Array<{ code: string; severity: string }> }): string | undefined {
  return result.diagnostics.find((d) => d.severity === 'error')?.code;
}

describe('engine pool', () => {
  it('runs a batch in input order and fails each bad item on its own', async () => {
    const engine = pool({ threads: 2 });
    const items: EvaluationItem[] = [
      quick('double', 21),
      quick('check', 500),
      quick('nope', 1),
      quick('double', 1, { locale: 'xx-YY' }),
      quick('double', 1, { source: 'Module broken.\n\nRule f produce Int\n  Return 1.\n' }),
      quick('double', 'seven'),
      quick('double', 4, { locale: 'en' }),
      quick('check', 7),
    ];
    const results = await engine.evaluateMany(items);

    expect(results.map((r) => [r.ok, r.value])).toEqual([
      [true, 42],
      [false, null],
      [false, null],
      [false, null],
      [false, null],
      [false, null],
      [true, 8],
      [true, 7],
    ]);
    expect(results.map((r) => (r.ok ? null : firstErrorCode(r)?.slice(0, 3)))).toEqual([null, 'PL3', 'PL6', 'PL6', 'PL1', 'PL5', null, null]);
    expect(firstErrorCode(results[1]!)).toBe('PL3004');
    expect(firstErrorCode(results[2]!)).toBe('PL6002');
    expect(firstErrorCode(results[3]!)).toBe('PL6001');
    for (const result of results) {
      if (result.ok) {
        expect(result).toMatchObject({ error: null, diagnostics: [] });
      } else {
        const first = result.diagnostics.find((d) => d.severity === 'error')!;
        expect(result.error).toBe(describeDiagnostic(first));
      }
      expect(result.executionTimeMs).toBeGreaterThanOrEqual(0);
    }
    // A syntax error carries its position in the error string.
    expect(results[4]!.error).toMatch(/^PL1\d{3} .+ at \d+:\d+$/);
  });

  it('returns the decision trace only when an item asks for it', async () => {
    const engine = pool({ threads: 1 });
    const [traced, plain] = await engine.evaluateMany([quick('check', 7, { trace: true }), quick('check', 7)]);
    expect(traced!.trace?.length).toBeGreaterThan(0);
    expect(traced!.trace?.at(-1)).toMatchObject({ kind: 'return', value: 7 });
    expect(plain).not.toHaveProperty('trace');
  });

  it('turns malformed items into item errors instead of failing the batch', async () => {
    const engine = pool({ threads: 1 });
    const results = await engine.evaluateMany([{ source: 42, locale: 'en-US', functionName: 'f', context: {} } as never, quick('double', 2)]);
    expect(results[0]).toMatchObject({ ok: false, error: 'invalid evaluation item: `source` must be a string' });
    expect(results[1]).toMatchObject({ ok: true, value: 4 });
  });

  it('ends a runaway evaluation with PL4004, keeps the rest of its batch, and keeps serving', async () => {
    const engine = pool({ threads: 2, taskTimeoutMs: 300, stepBudget: Number.MAX_SAFE_INTEGER, maxItemsPerTask: 8 });
    const batch = [quick('double', 1), quick('double', 2), spin(1000), quick('double', 3), quick('check', 500)];
    const results = await engine.evaluateMany(batch);

    expect(results[2]).toMatchObject({
      ok: false,
      value: null,
      error: 'PL4004 evaluation timed out after 300 ms',
      diagnostics: [{ code: 'PL4004', severity: 'error', message: 'evaluation timed out after 300 ms', span: null }],
    });
    expect(results[2]!.executionTimeMs).toBeGreaterThanOrEqual(300);
    expect(results.map((r) => r.value)).toEqual([2, 4, null, 6, null]);
    expect(firstErrorCode(results[4]!)).toBe('PL3004');
    expect(engine.stats().timedOutItems).toBe(1);

    const next = await engine.evaluateMany(range(20).map((x) => quick('double', x)));
    expect(next.map((r) => r.value)).toEqual(range(20).map((x) => x * 2));
    expect(engine.threadWorkers()).toHaveLength(2);
  });

  it('replaces a thread killed mid-load and still answers every item', async () => {
    const engine = pool({ threads: 2, taskTimeoutMs: 10_000, stepBudget: Number.MAX_SAFE_INTEGER, maxItemsPerTask: 4 });
    const lengths = range(24).map((i) => 140 + (i % 5));
    const running = engine.evaluateMany(lengths.map(spin));
    // The load lasts seconds; kill a thread while it runs (threadFailures below proves it was busy).
    await new Promise((resolve) => setTimeout(resolve, 200));
    await engine.threadWorkers()[0]!.terminate();
    const results = await running;

    expect(results.map((r) => r.value)).toEqual(lengths.map((n) => n ** 3));
    expect(engine.stats().threadFailures).toBeGreaterThanOrEqual(1);
    const after = await engine.evaluateMany([quick('double', 5), quick('double', 6)]);
    expect(after.map((r) => r.value)).toEqual([10, 12]);
    expect(engine.threadWorkers()).toHaveLength(2);
  });

  it('compiles a (locale, source) once per thread and serves repeats from the cache', async () => {
    const engine = pool({ threads: 1 });
    for (let i = 0; i < 5; i++) await engine.evaluate(quick('double', i));
    // An alias of the same locale shares the entry; another locale is another program.
    await engine.evaluate(quick('double', 9, { locale: 'EN_us' }));
    await engine.evaluate(quick('double', 9, { locale: 'de-DE', source: GERMAN }));
    await engine.evaluateMany([quick('double', 1), quick('check', 2), quick('double', 3, { locale: 'de', source: GERMAN })]);
    expect(engine.stats()).toMatchObject({ cacheMisses: 2, cacheHits: 8 });
  });

  it('evicts the least recently used program beyond the cache size', async () => {
    const engine = pool({ threads: 1, cacheSize: 1 });
    const other = QUICK.replace('test.quick', 'test.other');
    await engine.evaluate(quick('double', 1));
    await engine.evaluate(quick('double', 1, { source: other }));
    await engine.evaluate(quick('double', 1));
    expect(engine.stats()).toMatchObject({ cacheMisses: 3, cacheHits: 0 });
  });
});
