/**
 * Runs one rule of a compiled program on a JSON context. Every user-caused problem — unknown
 * function, bad input, runtime failure, exhausted budget — comes back as diagnostics.
 */
import type { CompiledProgram, EvaluateOptions, EvaluationResult, JsonValue, TraceEntry } from '../api-types.js';
import { FunctionNotFound, NestingTooDeep, placeDiagnostic, type Diagnostic } from '../diagnostics/index.js';
import { EvaluationError } from './evaluation-error.js';
import { INVALID } from './input-conversion.js';
import { DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_TRACE_BYTES, validateByteLimit } from './value-limits.js';
import { PROGRAM_RUNTIME, type EntryPoint, type InternalProgram, type ProgramRuntime } from './program-runtime.js';

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

/** A thrown evaluation failure as a result; anything else is a defect and goes on up. */
function caught(error: unknown, trace: TraceEntry[] | null): EvaluationResult {
  if (error instanceof EvaluationError) return failure([error.toDiagnostic()], trace);
  if (isStackOverflow(error)) {
    // Possible only with very deep input (a record holding a list of itself) or expressions.
    return failure([placeDiagnostic(NestingTooDeep.evaluate(), null)], trace);
  }
  throw error;
}

function unknownFunction(runtime: ProgramRuntime, functionName: string): EvaluationResult {
  return failure([placeDiagnostic(FunctionNotFound(functionName, runtime.moduleName, runtime.entries.keys()), null)], null);
}

export function evaluate(
  program: CompiledProgram,
  functionName: string,
  context: unknown,
  options?: EvaluateOptions,
): EvaluationResult {
  const runtime = (program as Partial<InternalProgram>)[PROGRAM_RUNTIME];
  if (runtime === undefined) throw new TypeError('evaluate() needs a program returned by compile()');
  let entry = runtime.last;
  if (entry === null || entry.name !== functionName) {
    entry = runtime.entries.get(functionName) ?? null;
    if (entry === null) return unknownFunction(runtime, functionName);
    runtime.last = entry;
  }
  if (
    options !== undefined &&
    (options.trace === true || options.stepBudget !== undefined || options.maxResultBytes !== undefined || options.maxTraceBytes !== undefined)
  ) {
    return evaluateWithOptions(runtime, entry, context, options);
  }
  // The common path: untraced, with the program's budget and the default result limit.
  if (entry.runs < runtime.tierUpAfter && ++entry.runs === runtime.tierUpAfter) runtime.tierUp(entry);
  const meter = runtime.meter;
  meter.budget = runtime.stepBudget;
  meter.left = runtime.stepBudget;
  const fast = entry.fast;
  if (fast !== null) {
    try {
      const value = fast(context);
      return value === INVALID ? failure(entry.args.diagnose(context), null) : { ok: true, value: value as JsonValue };
    } catch (error) {
      return caught(error, null);
    }
  }
  const code = entry.plain;
  try {
    if (!entry.args.convert(context, code.frame)) return failure(entry.args.diagnose(context), null);
    return { ok: true, value: entry.toJson(code.body(), DEFAULT_MAX_RESULT_BYTES) };
  } catch (error) {
    return caught(error, null);
  }
}

function evaluateWithOptions(runtime: ProgramRuntime, entry: EntryPoint, context: unknown, options: EvaluateOptions): EvaluationResult {
  const budget = options.stepBudget === undefined ? runtime.stepBudget : validateStepBudget(options.stepBudget);
  const maxResultBytes = validateByteLimit('maxResultBytes', options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES);
  const maxTraceBytes = validateByteLimit('maxTraceBytes', options.maxTraceBytes ?? DEFAULT_MAX_TRACE_BYTES);
  const tracing = options.trace === true;
  let trace: TraceEntry[] | null = null;
  let code = entry.plain;
  if (tracing) {
    const tree = runtime.traced();
    code = tree.rules.get(entry.name)!;
    trace = tree.sink!.start(maxTraceBytes);
  } else if (entry.runs < runtime.tierUpAfter && ++entry.runs === runtime.tierUpAfter) {
    runtime.tierUp(entry);
    code = entry.plain;
  }
  const meter = runtime.meter;
  meter.budget = budget;
  meter.left = budget;
  try {
    if (!entry.args.convert(context, code.frame)) return failure(entry.args.diagnose(context), trace);
    const value = entry.toJson(code.body(), maxResultBytes);
    return trace === null ? { ok: true, value } : { ok: true, value, trace };
  } catch (error) {
    return caught(error, trace);
  }
}
