/**
 * What runs inside an evaluation thread: compile (through the per-thread cache) and evaluate each
 * item of a task, one after the other, publishing progress for the pool's wall-time watchdog.
 */
import { performance } from 'node:perf_hooks';
import type { CompileOptions, CompileResult, CompiledProgram, EvaluateOptions, EvaluationResult } from '../language/api-types.js';
import { describeDiagnostic, type Diagnostic } from '../language/diagnostics/index.js';
import { createProgramCache, programCacheKey } from './program-cache.js';
import {
  PROGRESS_INDEX,
  PROGRESS_STARTED_AT,
  type ThreadItem,
  type ThreadItemResult,
  type ThreadSettings,
  type ThreadTask,
  type ThreadTaskResult,
} from './thread-protocol.js';

/** The two language entry points the thread needs (src/language/index.ts provides them). */
export interface ThreadLanguage {
  /** Canonical tag of a locale alias (`en`, `DE_de`…), null when unsupported. */
  resolveLocale(tag: string): string | null;
  compile(source: string, localeTag: string, options?: CompileOptions): CompileResult;
  evaluate(program: CompiledProgram, functionName: string, context: unknown, options?: EvaluateOptions): EvaluationResult;
}

export const INTERNAL_EVALUATION_ERROR = 'internal error while evaluating the policy';

export function createEvaluationThreadHandler(
  settings: ThreadSettings,
  language: ThreadLanguage,
): (task: ThreadTask) => ThreadTaskResult {
  const cache = createProgramCache<CompileResult>(settings.cacheSize);
  const evaluateOptions = (trace: boolean): EvaluateOptions =>
    settings.stepBudget === undefined ? { trace } : { trace, stepBudget: settings.stepBudget };

  function runItem(item: ThreadItem, source: string, key: string): ThreadItemResult {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
    let cacheHit = false;
    try {
      let compiled = cache.get(key);
      if (compiled) {
        cacheHit = true;
      } else {
        compiled = language.compile(source, item.locale);
        cache.set(key, compiled);
      }
      const compileErrors = compiled.diagnostics.filter((d) => d.severity === 'error');
      if (compiled.program === null || compileErrors.length > 0) {
        return failure(compiled.diagnostics, elapsed(), cacheHit);
      }
      const outcome = language.evaluate(compiled.program, item.functionName, item.context, evaluateOptions(item.trace));
      const trace = item.trace && outcome.trace ? { trace: outcome.trace } : {};
      const moduleName = { moduleName: compiled.program.moduleName };
      if (outcome.ok) {
        return { ok: true, value: outcome.value, diagnostics: [], error: null, executionTimeMs: elapsed(), cacheHit, ...trace, ...moduleName };
      }
      return { ...failure(outcome.diagnostics, elapsed(), cacheHit), ...trace, ...moduleName };
    } catch (error) {
      // The language reports user problems as diagnostics; a throw is a defect, so keep its stack in the log only.
      console.error('evaluation thread: unexpected error', error);
      return { ok: false, value: null, diagnostics: [], error: INTERNAL_EVALUATION_ERROR, executionTimeMs: elapsed(), cacheHit };
    }
  }

  return function handleTask(task: ThreadTask): ThreadTaskResult {
    const progress = new Int32Array(task.progress);
    // A batch usually repeats one (locale, source): hash it once per task, not once per item.
    const keys = new Map<string, string>();
    const results: ThreadItemResult[] = [];
    for (let index = 0; index < task.items.length; index++) {
      const item = task.items[index]!;
      // Start before index: a reader that sees index i then reads a start no older than item i's.
      Atomics.store(progress, PROGRESS_STARTED_AT, Date.now() - task.baseTime);
      Atomics.store(progress, PROGRESS_INDEX, index);
      const source = task.sources[item.sourceIndex] ?? '';
      const memo = `${item.sourceIndex}\0${item.locale}`;
      let key = keys.get(memo);
      if (key === undefined) {
        // Aliases of one locale share an entry; an unsupported tag caches its PL6001 under the tag as sent.
        key = programCacheKey(language.resolveLocale(item.locale) ?? item.locale, source);
        keys.set(memo, key);
      }
      results.push(runItem(item, source, key));
    }
    return { results };
  };
}

function failure(diagnostics: Diagnostic[], executionTimeMs: number, cacheHit: boolean): ThreadItemResult {
  const first = diagnostics.find((d) => d.severity === 'error') ?? diagnostics[0];
  return {
    ok: false,
    value: null,
    diagnostics,
    error: first ? describeDiagnostic(first) : INTERNAL_EVALUATION_ERROR,
    executionTimeMs,
    cacheHit,
  };
}
