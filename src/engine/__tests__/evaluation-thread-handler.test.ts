import { describe, expect, it, vi } from 'vitest';
import type { CompileResult, CompiledProgram, EvaluationResult } from '../../language/api-types.js';
import type { Diagnostic } from '../../language/diagnostics/index.js';
import { createEvaluationThreadHandler, INTERNAL_EVALUATION_ERROR, type ThreadLanguage } from '../evaluation-thread-handler.js';
import { PROGRESS_INDEX, PROGRESS_STARTED_AT, createProgressBuffer, type ThreadItem, type ThreadTask } from '../thread-protocol.js';

// The language is the edge of this unit: a stand-in records calls and answers from the source text.
function recordingLanguage() {
  const compiled: string[] = [];
  const evaluated: Array<{ functionName: string; options: unknown }> = [];
  const language: ThreadLanguage = {
    resolveLocale: (tag) => ({ 'en-us': 'en-US', en: 'en-US', 'de-de': 'de-DE' })[tag.toLowerCase()] ?? null,
    compile(source, locale): CompileResult {
      compiled.push(`${locale}|${source}`);
      if (source === 'broken') return { program: null, diagnostics: [warning, syntaxError] };
      const program = { moduleName: 'm', locale: 'en-US', functions: [], module: {} } as unknown as CompiledProgram;
      return { program, diagnostics: source === 'warned' ? [warning] : [] };
    },
    evaluate(_program, functionName, context, options): EvaluationResult {
      evaluated.push({ functionName, options });
      if (functionName === 'explode') throw new Error('defect');
      if (functionName === 'missing') return { ok: false, diagnostics: [notFound] };
      return { ok: true, value: context as never, trace: [] };
    },
  };
  return { language, compiled, evaluated };
}

const warning: Diagnostic = { code: 'PL2021', severity: 'warning', message: 'unreachable statement', span: null };
const syntaxError: Diagnostic = {
  code: 'PL1007',
  severity: 'error',
  message: 'missing `.` at the end of a statement',
  span: { start: 10, end: 11, line: 2, column: 5, endLine: 2, endColumn: 6 },
};
const notFound: Diagnostic = { code: 'PL6002', severity: 'error', message: 'function `nope` not found in the module', span: null };

function task(sources: string[], items: Array<Partial<ThreadItem>>): ThreadTask {
  return {
    sources,
    items: items.map((item) => ({ sourceIndex: 0, locale: 'en-US', functionName: 'f', context: {}, trace: false, ...item })),
    progress: createProgressBuffer(),
    baseTime: Date.now(),
  };
}

describe('evaluation thread handler', () => {
  it('compiles a (locale, source) once and serves later items from the cache', () => {
    const { language, compiled } = recordingLanguage();
    const handle = createEvaluationThreadHandler({ cacheSize: 8 }, language);
    const first = handle(task(['A'], [{ context: 1 }, { context: 2 }, { locale: 'de-DE', context: 3 }]));
    const second = handle(task(['A'], [{ context: 4 }, { locale: 'en', context: 5 }]));
    expect(compiled).toEqual(['en-US|A', 'de-DE|A']);
    expect(first.results.map((r) => [r.value, r.cacheHit])).toEqual([
      [1, false],
      [2, true],
      [3, false],
    ]);
    expect(second.results[0]).toMatchObject({ ok: true, value: 4, cacheHit: true, error: null, diagnostics: [] });
    // A locale alias shares the canonical locale's entry.
    expect(second.results[1]).toMatchObject({ ok: true, value: 5, cacheHit: true });
  });

  it('recompiles once an entry has been evicted', () => {
    const { language, compiled } = recordingLanguage();
    const handle = createEvaluationThreadHandler({ cacheSize: 1 }, language);
    handle(task(['A', 'B'], [{ sourceIndex: 0 }, { sourceIndex: 1 }, { sourceIndex: 0 }]));
    expect(compiled).toEqual(['en-US|A', 'en-US|B', 'en-US|A']);
  });

  it('reports compile failures with the first error and every diagnostic', () => {
    const { language } = recordingLanguage();
    const handle = createEvaluationThreadHandler({ cacheSize: 8 }, language);
    const [result] = handle(task(['broken'], [{}])).results;
    expect(result).toMatchObject({
      ok: false,
      value: null,
      error: 'PL1007 missing `.` at the end of a statement at 2:5',
      diagnostics: [warning, syntaxError],
    });
  });

  it('runs a program that compiled with warnings only', () => {
    const { language } = recordingLanguage();
    const handle = createEvaluationThreadHandler({ cacheSize: 8 }, language);
    expect(handle(task(['warned'], [{ context: 'x' }])).results[0]).toMatchObject({ ok: true, value: 'x' });
  });

  it('keeps each item to itself: evaluation errors and defects fail only their item', () => {
    const { language } = recordingLanguage();
    const handle = createEvaluationThreadHandler({ cacheSize: 8 }, language);
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { results } = handle(task(['A'], [{ functionName: 'missing' }, { functionName: 'explode' }, { context: 'fine' }]));
    // The defect's stack goes to the log, never into the result.
    expect(log).toHaveBeenCalledTimes(1);
    log.mockRestore();
    expect(results.map((r) => [r.ok, r.error])).toEqual([
      [false, 'PL6002 function `nope` not found in the module'],
      [false, INTERNAL_EVALUATION_ERROR],
      [true, null],
    ]);
  });

  it('passes the step budget and trace flag, and returns a trace only when asked', () => {
    const { language, evaluated } = recordingLanguage();
    const handle = createEvaluationThreadHandler({ cacheSize: 8, stepBudget: 5000 }, language);
    const { results } = handle(task(['A'], [{ trace: true }, { trace: false }]));
    expect(evaluated.map((e) => e.options)).toEqual([
      { trace: true, stepBudget: 5000 },
      { trace: false, stepBudget: 5000 },
    ]);
    expect(results[0]!.trace).toEqual([]);
    expect(results[1]).not.toHaveProperty('trace');
  });

  it('publishes the running item and its start for the watchdog', () => {
    const { language } = recordingLanguage();
    const handle = createEvaluationThreadHandler({ cacheSize: 8 }, language);
    const work = task(['A'], [{}, {}, {}]);
    work.baseTime = Date.now() - 5000;
    handle(work);
    const progress = new Int32Array(work.progress);
    expect(Atomics.load(progress, PROGRESS_INDEX)).toBe(2);
    expect(Atomics.load(progress, PROGRESS_STARTED_AT)).toBeGreaterThanOrEqual(5000);
  });
});
