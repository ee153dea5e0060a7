/**
 * The policy language's public API. Nothing here throws for bad user input (source, locale tag,
 * function name, context): every problem comes back as diagnostics.
 */
import type { CompileOptions, CompileResult } from './api-types.js';
import { SUPPORTED_LOCALES } from './api-types.js';
import { check } from './checker/index.js';
import { compileProgram } from './compiler/index.js';
import { NestingTooDeep, placeDiagnostic, UnsupportedLocale } from './diagnostics/index.js';
import { resolveLocale } from './locales/index.js';
import { parse } from './parser/index.js';

export { parse } from './parser/index.js';
export { MAX_SOURCE_BYTES } from './lexer/index.js';
export { format } from './format/index.js';
export { check, MAX_WITHIN_MINUTES, MAX_WORKFLOW_STEPS, type CheckResult, type CheckedModule } from './checker/index.js';
export { DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_TRACE_BYTES, evaluate } from './runtime/index.js';
export { resolveLocale, detectLocale, sourceLocale } from './locales/index.js';
export {
  describeDiagnostic,
  DIAGNOSTIC_CODES,
  DIAGNOSTIC_DEFINITIONS,
  EvaluationTimedOut,
  isContextInputCode,
  type Diagnostic,
  type DiagnosticCode,
  type DiagnosticDefinition,
  type Severity,
} from './diagnostics/index.js';
export { stripPositions } from './ast/index.js';
export { checkReport, type CheckReport } from './check-report.js';
export type * from './ast/nodes.js';
export { SUPPORTED_LOCALES } from './api-types.js';
export type {
  CompileOptions,
  CompileResult,
  CompiledProgram,
  EvaluateOptions,
  EvaluationResult,
  FunctionSignature,
  WorkflowSignature,
  WorkflowStepInfo,
  JsonValue,
  Locale,
  ParameterInfo,
  ParseResult,
  TierUpFailure,
  TraceEntry,
} from './api-types.js';

function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

/**
 * Source text in a locale → a checked, compiled program (parse, check, compile). The program is
 * null when any error was found; warnings alone keep it.
 */
export function compile(source: string, localeTag: string, options?: CompileOptions): CompileResult {
  const locale = resolveLocale(localeTag);
  if (locale === null) {
    return { program: null, diagnostics: [placeDiagnostic(UnsupportedLocale.compile(String(localeTag), SUPPORTED_LOCALES), null)] };
  }
  const parsed = parse(source, locale);
  if (parsed.module === null || parsed.diagnostics.some((d) => d.severity === 'error')) {
    return { program: null, diagnostics: parsed.diagnostics };
  }
  try {
    const checked = check(parsed.module);
    const diagnostics = [...parsed.diagnostics, ...checked.diagnostics];
    if (checked.checked === null) return { program: null, diagnostics };
    const program = compileProgram(checked.checked, {
      source,
      locale,
      ...(options?.stepBudget === undefined ? {} : { stepBudget: options.stepBudget }),
      ...(options?.onTierUpFailure === undefined ? {} : { onTierUpFailure: options.onTierUpFailure }),
    });
    return { program, diagnostics };
  } catch (error) {
    // The parser bounds nesting, but a very long operator chain is deep too; report, do not crash.
    if (!isStackOverflow(error)) throw error;
    return {
      program: null,
      diagnostics: [placeDiagnostic(NestingTooDeep.compile(), parsed.module.span)],
    };
  }
}
