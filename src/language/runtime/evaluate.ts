/**
 * Runs one rule of a compiled program on a JSON context. Every user-caused problem — unknown
 * function, bad input, runtime failure, exhausted budget — comes back as diagnostics.
 */
import type { CompiledProgram, EvaluateOptions, EvaluationResult, TraceEntry } from '../api-types.js';
import { suggestName } from '../checker/suggest.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { EvaluationError } from './evaluation-error.js';
import { programRuntime, type RuleCode } from './program-runtime.js';

export function validateStepBudget(budget: number): number {
  if (!Number.isSafeInteger(budget) || budget < 1) {
    throw new RangeError(`step budget must be a positive integer, got ${String(budget)}`);
  }
  return budget;
}

function failure(diagnostics: Diagnostic[], trace: TraceEntry[] | null): EvaluationResult {
  return trace === null ? { ok: false, diagnostics } : { ok: false, diagnostics, trace };
}

function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

export function evaluate(
  program: CompiledProgram,
  functionName: string,
  context: unknown,
  options?: EvaluateOptions,
): EvaluationResult {
  const runtime = programRuntime(program);
  if (runtime === undefined) throw new TypeError('evaluate() needs a program returned by compile()');
  let entry = runtime.last;
  if (entry === null || entry.name !== functionName) {
    entry = runtime.entries.get(functionName) ?? null;
    if (entry !== null) runtime.last = entry;
  }
  if (entry === null) {
    const suggestion = suggestName(functionName, runtime.entries.keys());
    const hint = suggestion === null ? '' : `; did you mean \`${suggestion}\`?`;
    return failure(
      [{ code: 'PL6002', severity: 'error', message: `function \`${functionName}\` not found in module \`${runtime.moduleName}\`${hint}`, span: null }],
      null,
    );
  }
  const tracing = options !== undefined && options.trace === true;
  const budget = options === undefined || options.stepBudget === undefined ? runtime.stepBudget : validateStepBudget(options.stepBudget);
  let code: RuleCode;
  let trace: TraceEntry[] | null = null;
  if (tracing) {
    const tree = runtime.traced();
    code = tree.rules.get(functionName)!;
    trace = [];
    tree.sink!.entries = trace;
  } else {
    if (entry.runs < runtime.tierUpAfter && ++entry.runs === runtime.tierUpAfter) runtime.tierUp(entry);
    code = entry.plain;
  }
  if (!entry.args.convert(context, code.frame)) return failure(entry.args.diagnose(context), trace);

  const meter = runtime.meter;
  meter.budget = budget;
  meter.left = budget;
  try {
    const value = entry.toJson(code.body());
    return trace === null ? { ok: true, value } : { ok: true, value, trace };
  } catch (error) {
    if (error instanceof EvaluationError) return failure([error.toDiagnostic()], trace);
    if (isStackOverflow(error)) {
      return failure(
        [{ code: 'PL4002', severity: 'error', message: 'expressions are nested too deeply to evaluate', span: null }],
        trace,
      );
    }
    throw error;
  }
}
