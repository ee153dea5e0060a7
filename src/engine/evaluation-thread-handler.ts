/**
 * What runs inside an evaluation thread: compile (through the tenant's program cache) and run each
 * item of a task, one after the other, publishing progress for the pool's wall-time watchdog.
 * Every result leaves the thread as JSON text, so its cost is paid here, off the worker's event loop.
 */
import { performance } from 'node:perf_hooks';
import type {
  CompileOptions,
  CompileResult,
  CompiledProgram,
  EvaluateOptions,
  EvaluationResult,
  Locale,
  ParseResult,
} from '../language/api-types.js';
import type { ModuleNode } from '../language/ast/nodes.js';
import { DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_TRACE_BYTES } from '../language/index.js';
import type { BatchItem } from './evaluation-batch.js';
import {
  diagnosticFailure,
  EngineFailureCode,
  engineFailure,
  INTERNAL_EVALUATION_ERROR,
  resultKindOf,
  type FormatOutcome,
  type ItemResult,
} from './item-result.js';
import { programCacheKey } from './program-cache.js';
import { createTenantProgramCache } from './tenant-program-cache.js';
import {
  PROGRESS_INDEX,
  PROGRESS_STARTED_AT,
  type ThreadItemResult,
  type ThreadSettings,
  type ThreadTask,
  type ThreadTaskResult,
} from './thread-protocol.js';

/** The language entry points the thread needs (src/language/index.ts provides them). */
export interface ThreadLanguage {
  /** Canonical tag of a locale alias (`en`, `DE_de`…), null when unsupported. */
  resolveLocale(tag: string): string | null;
  compile(source: string, localeTag: string, options?: CompileOptions): CompileResult;
  evaluate(program: CompiledProgram, functionName: string, context: unknown, options?: EvaluateOptions): EvaluationResult;
  parse(source: string, locale: Locale): ParseResult;
  /** Prints a parsed module in a locale (the formatter of `policy fmt`). */
  format(module: ModuleNode, locale: Locale): string;
}

export function createEvaluationThreadHandler(
  settings: ThreadSettings,
  language: ThreadLanguage,
): (task: ThreadTask) => ThreadTaskResult {
  const cache = createTenantProgramCache<CompileResult>(settings.cacheSize, settings.cacheTenants);

  // The step budget is fixed per pool, so it is compiled into the program; an evaluation then takes
  // options only for what differs per item (trace, a smaller output share), which keeps the common
  // case on the language's fast path.
  const compileOptions: CompileOptions = settings.stepBudget === undefined ? {} : { stepBudget: settings.stepBudget };

  /** Options of one evaluation, or none when the language's defaults already say it all. */
  function evaluateOptions(item: Extract<BatchItem, { kind: 'evaluate' }>): EvaluateOptions | undefined {
    const trace = item.trace === true;
    // The item's share of its request's answer covers result and trace together.
    const share = item.outputLimitBytes === undefined ? Infinity : trace ? Math.max(1, Math.floor(item.outputLimitBytes / 2)) : item.outputLimitBytes;
    const maxResultBytes = Math.min(share, settings.maxResultBytes);
    const maxTraceBytes = Math.min(share, settings.maxTraceBytes);
    if (!trace && maxResultBytes === DEFAULT_MAX_RESULT_BYTES && maxTraceBytes === DEFAULT_MAX_TRACE_BYTES) return undefined;
    return { trace, maxResultBytes, maxTraceBytes };
  }

  /** Parses and prints a stored source in another locale: no checking, no program, nothing cached. */
  function formatItem(item: Extract<BatchItem, { kind: 'format' }>, source: string, elapsed: () => number): FormatOutcome {
    const target = language.resolveLocale(item.targetLocale) as Locale | null;
    if (target === null) return engineFailure('formatted', EngineFailureCode.ITEM_INVALID, `invalid evaluation item: unsupported \`targetLocale\` ${item.targetLocale.slice(0, 32)}`, elapsed());
    const parsed = language.parse(source, (language.resolveLocale(item.locale) ?? item.locale) as Locale);
    if (parsed.module === null || parsed.diagnostics.some((d) => d.severity === 'error')) return diagnosticFailure('formatted', parsed.diagnostics, elapsed());
    return { kind: 'formatted', ok: true, text: language.format(parsed.module, target), executionTimeMs: elapsed() };
  }

  function runItem(item: BatchItem, source: string, key: string, elapsed: () => number): { result: ItemResult; cacheHit: boolean } {
    if (item.kind === 'format') return { result: formatItem(item, source, elapsed), cacheHit: false };
    let compiled = cache.get(item.tenantId, key);
    const cacheHit = compiled !== undefined;
    if (compiled === undefined) {
      compiled = language.compile(source, item.locale, compileOptions);
      cache.set(item.tenantId, key, compiled);
    }
    const { program, diagnostics } = compiled;
    const hasErrors = program === null || diagnostics.some((d) => d.severity === 'error');
    if (item.kind === 'compile') {
      if (hasErrors) return { result: diagnosticFailure('compiled', diagnostics, elapsed()), cacheHit };
      const module = { moduleName: program.moduleName, locale: program.locale, functions: [...program.functions], workflows: [...program.workflows] };
      return { result: { kind: 'compiled', ok: true, module, diagnostics, executionTimeMs: elapsed() }, cacheHit };
    }
    if (hasErrors) return { result: diagnosticFailure('evaluated', diagnostics, elapsed()), cacheHit };
    const outcome = language.evaluate(program, item.functionName, item.context, evaluateOptions(item));
    const trace = item.trace === true && outcome.trace ? { trace: outcome.trace } : {};
    const moduleName = program.moduleName;
    const result: ItemResult = outcome.ok
      ? { kind: 'evaluated', ok: true, value: outcome.value, moduleName, executionTimeMs: elapsed(), ...trace }
      : { ...diagnosticFailure('evaluated', outcome.diagnostics, elapsed()), moduleName, ...trace };
    return { result, cacheHit };
  }

  function answer(item: BatchItem, source: string, key: string): ThreadItemResult {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
    let cacheHit = false;
    let result: ItemResult;
    try {
      ({ result, cacheHit } = runItem(item, source, key, elapsed));
      return { ok: result.ok, json: JSON.stringify(result), cacheHit, executionTimeMs: result.executionTimeMs };
    } catch (error) {
      // The language reports user problems as diagnostics; a throw is a defect, so keep its stack in the log only.
      console.error('evaluation thread: unexpected error', error);
      result = engineFailure(resultKindOf(item.kind), EngineFailureCode.INTERNAL, INTERNAL_EVALUATION_ERROR, elapsed());
      return { ok: false, json: JSON.stringify(result), cacheHit, executionTimeMs: result.executionTimeMs };
    }
  }

  return function handleTask(task: ThreadTask): ThreadTaskResult {
    const { batch } = task;
    const progress = new Int32Array(task.progress);
    // A batch usually repeats one (locale, source): hash it once per task, not once per item.
    const keys = new Map<string, string>();
    const results: ThreadItemResult[] = [];
    for (let index = 0; index < batch.items.length; index++) {
      const item = batch.items[index]!;
      // Start before index: a reader that sees index i then reads a start no older than item i's.
      Atomics.store(progress, PROGRESS_STARTED_AT, Date.now() - task.baseTime);
      Atomics.store(progress, PROGRESS_INDEX, index);
      const source = batch.sources[item.sourceIndex] ?? '';
      const memo = `${item.sourceIndex}\0${item.locale}`;
      let key = keys.get(memo);
      if (key === undefined) {
        // Aliases of one locale share an entry; an unsupported tag caches its PL6001 under the tag as sent.
        key = programCacheKey(language.resolveLocale(item.locale) ?? item.locale, source);
        keys.set(memo, key);
      }
      results.push(answer(item, source, key));
    }
    return { results };
  };
}
