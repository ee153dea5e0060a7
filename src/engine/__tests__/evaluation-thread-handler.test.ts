import { describe, expect, it, vi } from 'vitest';
import type { CompileResult, CompiledProgram, EvaluationResult } from '../../language/api-types.js';
import type { Diagnostic } from '../../language/diagnostics/index.js';
import type { BatchItem } from '../evaluation-batch.js';
import { createEvaluationThreadHandler, type ThreadLanguage } from '../evaluation-thread-handler.js';
import { EngineFailureCode, INTERNAL_EVALUATION_ERROR, type ItemResult } from '../item-result.js';
import {
  PROGRESS_INDEX,
  PROGRESS_STARTED_AT,
  createProgressBuffer,
  type ThreadItemResult,
  type ThreadSettings,
  type ThreadTask,
} from '../thread-protocol.js';

// The language is the edge of this unit: a stand-in records calls and answers from the source text.
function recordingLanguage() {
  const compiled: string[] = [];
  const compileOptions: unknown[] = [];
  const evaluated: Array<{ functionName: string; options: unknown }> = [];
  const parsed: string[] = [];
  const language: ThreadLanguage = {
    resolveLocale: (tag) => ({ 'en-us': 'en-US', en: 'en-US', 'de-de': 'de-DE' })[tag.toLowerCase()] ?? null,
    compile(source, locale, options): CompileResult {
      compiled.push(`${locale}|${source}`);
      compileOptions.push(options);
      if (source === 'broken') return { program: null, diagnostics: [warning, syntaxError] };
      const functions = [{ name: 'f', params: [{ name: 'x', type: 'Int' }], returnType: 'Int' }];
      const program = { moduleName: `m.${source}`, locale: 'en-US', functions, workflows: [], module: {} } as unknown as CompiledProgram;
      return { program, diagnostics: source === 'warned' ? [warning] : [] };
    },
    evaluate(_program, functionName, context, options): EvaluationResult {
      evaluated.push({ functionName, options });
      if (functionName === 'explode') throw new Error('defect');
      if (functionName === 'missing') return { ok: false, diagnostics: [notFound] };
      return { ok: true, value: context as never, trace: [] };
    },
    parse(source, locale) {
      parsed.push(`${locale}|${source}`);
      if (source === 'broken') return { module: null, diagnostics: [syntaxError] };
      return { module: { text: source } as never, diagnostics: [] };
    },
    format: (module, locale) => `${(module as unknown as { text: string }).text} in ${locale}`,
  };
  return { language, compiled, compileOptions, evaluated, parsed };
}

const warning: Diagnostic = { code: 'PL2021', severity: 'warning', message: 'unreachable statement', span: null };
const syntaxError: Diagnostic = {
  code: 'PL1007',
  severity: 'error',
  message: 'missing `.` at the end of a statement',
  span: { start: 10, end: 11, line: 2, column: 5, endLine: 2, endColumn: 6 },
};
const notFound: Diagnostic = { code: 'PL6002', severity: 'error', message: 'function `nope` not found in the module', span: null };

const MiB = 1024 * 1024;
function settings(extra: Partial<ThreadSettings> = {}): ThreadSettings {
  return { cacheSize: 8, cacheTenants: 8, maxResultBytes: MiB, maxTraceBytes: MiB, ...extra };
}

type ItemSpec = Partial<Omit<Extract<BatchItem, { kind: 'evaluate' }>, 'kind'>> | Extract<BatchItem, { kind: 'compile' | 'format' }>;

function task(sources: string[], items: ItemSpec[]): ThreadTask {
  return {
    batch: {
      sources,
      items: items.map(
        (item): BatchItem =>
          'kind' in item && (item.kind === 'compile' || item.kind === 'format')
            ? item
            : {
                kind: 'evaluate',
                tenantId: 't1',
                sourceIndex: 0,
                locale: 'en-US',
                functionName: 'f',
                context: {},
                trace: false,
                ...(item as Partial<Extract<BatchItem, { kind: 'evaluate' }>>),
              },
      ),
    },
    progress: createProgressBuffer(),
    baseTime: Date.now(),
  };
}

const decode = (result: ThreadItemResult | undefined) => JSON.parse(result!.json) as ItemResult;
const values = (results: ThreadItemResult[]) => results.map((r) => {
  const decoded = decode(r);
  return decoded.kind === 'evaluated' && decoded.ok ? decoded.value : null;
});

describe('evaluation thread handler', () => {
  it('compiles a (locale, source) once per tenant and serves later items from the cache', () => {
    const { language, compiled } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings(), language);
    const first = handle(task(['A'], [{ context: 1 }, { context: 2 }, { locale: 'de-DE', context: 3 }]));
    const second = handle(task(['A'], [{ context: 4 }, { locale: 'en', context: 5 }]));
    expect(compiled).toEqual(['en-US|A', 'de-DE|A']);
    expect(first.results.map((r) => [decode(r).ok, r.cacheHit])).toEqual([
      [true, false],
      [true, true],
      [true, false],
    ]);
    expect(values(first.results)).toEqual([1, 2, 3]);
    expect(decode(second.results[0])).toMatchObject({ kind: 'evaluated', ok: true, value: 4, moduleName: 'm.A' });
    expect(second.results[0]!.cacheHit).toBe(true);
    // A locale alias shares the canonical locale's entry.
    expect(decode(second.results[1])).toMatchObject({ ok: true, value: 5 });
    expect(second.results[1]!.cacheHit).toBe(true);
  });

  it('keeps programs apart per tenant: the same source compiles once for each tenant', () => {
    const { language, compiled } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings(), language);
    const { results } = handle(task(['A'], [{ tenantId: 't1' }, { tenantId: 't2' }, { tenantId: 't1' }, { tenantId: 't2' }]));
    expect(compiled).toEqual(['en-US|A', 'en-US|A']);
    expect(results.map((r) => r.cacheHit)).toEqual([false, false, true, true]);
  });

  it("one tenant's many sources never evict another tenant's program", () => {
    const { language, compiled } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings({ cacheSize: 2 }), language);
    handle(task(['B'], [{ tenantId: 'tenant-b' }]));
    const sources = ['A0', 'A1', 'A2', 'A3', 'A4', 'A5'];
    handle(task(sources, sources.map((_, sourceIndex) => ({ tenantId: 'tenant-a', sourceIndex }))));
    const again = handle(task(['B'], [{ tenantId: 'tenant-b' }]));
    expect(again.results[0]!.cacheHit).toBe(true);
    expect(compiled.filter((entry) => entry.endsWith('|B'))).toHaveLength(1);
    // Tenant A's own cache did evict: its first source compiles again.
    const a0 = handle(task(['A0'], [{ tenantId: 'tenant-a' }]));
    expect(a0.results[0]!.cacheHit).toBe(false);
  });

  it('forgets the least recently used tenant beyond cacheTenants', () => {
    const { language, compiled } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings({ cacheTenants: 2 }), language);
    handle(task(['A'], [{ tenantId: 't1' }, { tenantId: 't2' }, { tenantId: 't3' }]));
    const { results } = handle(task(['A'], [{ tenantId: 't3' }, { tenantId: 't1' }]));
    expect(results.map((r) => r.cacheHit)).toEqual([true, false]);
    expect(compiled).toHaveLength(4);
  });

  it('recompiles once an entry has been evicted', () => {
    const { language, compiled } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings({ cacheSize: 1 }), language);
    handle(task(['A', 'B'], [{ sourceIndex: 0 }, { sourceIndex: 1 }, { sourceIndex: 0 }]));
    expect(compiled).toEqual(['en-US|A', 'en-US|B', 'en-US|A']);
  });

  it('reports compile failures with the first error, its code and every diagnostic', () => {
    const { language } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings(), language);
    const [result] = handle(task(['broken'], [{}])).results;
    expect(result!.ok).toBe(false);
    expect(decode(result)).toEqual({
      kind: 'evaluated',
      ok: false,
      code: 'PL1007',
      error: 'PL1007 missing `.` at the end of a statement at 2:5',
      diagnostics: [warning, syntaxError],
      executionTimeMs: expect.any(Number),
    });
  });

  it('answers compile items with the module summary, or the diagnostics that stopped it', () => {
    const { language, evaluated } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings(), language);
    const { results } = handle(
      task(
        ['warned', 'broken'],
        [
          { kind: 'compile', tenantId: 't1', sourceIndex: 0, locale: 'en-US' },
          { kind: 'compile', tenantId: 't1', sourceIndex: 1, locale: 'en-US' },
        ],
      ),
    );
    expect(decode(results[0])).toEqual({
      kind: 'compiled',
      ok: true,
      module: { moduleName: 'm.warned', locale: 'en-US', functions: [{ name: 'f', params: [{ name: 'x', type: 'Int' }], returnType: 'Int' }], workflows: [] },
      diagnostics: [warning],
      executionTimeMs: expect.any(Number),
    });
    expect(decode(results[1])).toMatchObject({ kind: 'compiled', ok: false, code: 'PL1007', diagnostics: [warning, syntaxError] });
    expect(results.map((r) => r.ok)).toEqual([true, false]);
    expect(evaluated).toEqual([]);
  });

  it('prints a source in the target locale, without compiling or caching it', () => {
    const { language, compiled, parsed } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings(), language);
    const format = (sourceIndex: number, targetLocale: string): BatchItem => ({ kind: 'format', tenantId: 't1', sourceIndex, locale: 'en', targetLocale });
    const { results } = handle(task(['A', 'broken'], [format(0, 'de-DE'), format(0, 'DE-de'), format(1, 'de-DE'), format(0, 'xx-XX')]));
    expect(results.map(decode)).toEqual([
      { kind: 'formatted', ok: true, text: 'A in de-DE', executionTimeMs: expect.any(Number) },
      { kind: 'formatted', ok: true, text: 'A in de-DE', executionTimeMs: expect.any(Number) },
      { kind: 'formatted', ok: false, code: 'PL1007', error: expect.stringContaining('PL1007'), diagnostics: [syntaxError], executionTimeMs: expect.any(Number) },
      { kind: 'formatted', ok: false, code: EngineFailureCode.ITEM_INVALID, error: expect.stringContaining('targetLocale'), diagnostics: [], executionTimeMs: expect.any(Number) },
    ]);
    expect(parsed).toEqual(['en-US|A', 'en-US|A', 'en-US|broken']);
    expect(compiled).toEqual([]);
  });

  it('runs a program that compiled with warnings only', () => {
    const { language } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings(), language);
    expect(decode(handle(task(['warned'], [{ context: 'x' }])).results[0])).toMatchObject({ ok: true, value: 'x' });
  });

  it('keeps each item to itself: evaluation errors and defects fail only their item', () => {
    const { language } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings(), language);
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { results } = handle(task(['A'], [{ functionName: 'missing' }, { functionName: 'explode' }, { context: 'fine' }]));
    // The defect's stack goes to the log, never into the result.
    expect(log).toHaveBeenCalledTimes(1);
    log.mockRestore();
    const decoded = results.map(decode);
    expect(decoded.map((r) => [r.ok, r.ok ? null : r.code, r.ok ? null : r.error])).toEqual([
      [false, 'PL6002', 'PL6002 function `nope` not found in the module'],
      [false, EngineFailureCode.INTERNAL, INTERNAL_EVALUATION_ERROR],
      [true, null, null],
    ]);
    expect(decoded[0]).toMatchObject({ moduleName: 'm.A' });
    expect(JSON.stringify(decoded[1])).not.toContain('defect');
  });

  it('compiles with the step budget, and passes trace and output limits only when they differ from the defaults', () => {
    const { language, evaluated, compileOptions } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings({ stepBudget: 5000 }), language);
    const { results } = handle(task(['A'], [{ trace: true }, { trace: false, outputLimitBytes: 100 }, { outputLimitBytes: 4 * 1024 * 1024 }, {}]));
    expect(compileOptions).toEqual([{ stepBudget: 5000 }]);
    expect(evaluated.map((e) => e.options)).toEqual([
      { trace: true, maxResultBytes: 1024 * 1024, maxTraceBytes: 1024 * 1024 },
      // A request's own limit only ever lowers the engine's.
      { trace: false, maxResultBytes: 100, maxTraceBytes: 100 },
      // Nothing differs from the language's defaults: no options, the language's fast path.
      undefined,
      undefined,
    ]);
    expect(decode(results[0])).toMatchObject({ trace: [] });
    expect(decode(results[1])).not.toHaveProperty('trace');
  });

  it("passes the engine's own output limits when they differ from the language defaults", () => {
    const { language, evaluated } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings({ maxResultBytes: 4000, maxTraceBytes: 3000 }), language);
    handle(task(['A'], [{}, { outputLimitBytes: 3500 }]));
    expect(evaluated.map((e) => e.options)).toEqual([
      { trace: false, maxResultBytes: 4000, maxTraceBytes: 3000 },
      { trace: false, maxResultBytes: 3500, maxTraceBytes: 3000 },
    ]);
  });

  it('publishes the running item and its start for the watchdog', () => {
    const { language } = recordingLanguage();
    const handle = createEvaluationThreadHandler(settings(), language);
    const work = task(['A'], [{}, {}, {}]);
    work.baseTime = Date.now() - 5000;
    handle(work);
    const progress = new Int32Array(work.progress);
    expect(Atomics.load(progress, PROGRESS_INDEX)).toBe(2);
    expect(Atomics.load(progress, PROGRESS_STARTED_AT)).toBeGreaterThanOrEqual(5000);
  });
});
