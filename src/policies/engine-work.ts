/**
 * The registry's work in the engine (a deploy's and a check's): compile a source, run its test
 * cases, print it in another locale. What the source did comes back; what the engine failed at
 * itself is thrown, for it says nothing of the source: a defect is a 500 (logged), a stopped
 * thread or a cancellation a 503 to retry.
 */
import { EngineFailureCode, TIMEOUT_CODE, type CompileOutcome, type EvaluationOutcome, type FormatOutcome } from '../engine/index.js';
import type { SourceCase } from '../evaluation/index.js';
import type { CaseOutcome, ModuleTests } from './module-tests.js';
import { PolicyRegistryError } from './policy-errors.js';

export type EngineCompile = (tenantId: string, source: string, locale: string) => Promise<CompileOutcome>;
/** Formats a source in the engine (EvaluationService.format): never on the API's event loop. */
export type SourceFormatter = (tenantId: string, source: string, locale: string, targetLocale: string) => Promise<FormatOutcome>;
export type EngineCases = (tenantId: string, source: string, locale: string, cases: readonly SourceCase[]) => Promise<EvaluationOutcome[]>;

/** The compile's outcome when the source decided it: compiled, or refused with error diagnostics. */
export async function compileSource(compile: EngineCompile, tenantId: string, source: string, locale: string): Promise<CompileOutcome> {
  const compiled = await compile(tenantId, source, locale);
  if (compiled.ok || compiled.diagnostics.some((d) => d.severity === 'error')) return compiled;
  if (compiled.code === EngineFailureCode.INTERNAL) throw new Error(`compiling a policy source failed: ${compiled.error}`);
  throw new PolicyRegistryError(503, compiled.code, `the policy source could not be compiled: ${compiled.error}; retry later`);
}

/** Each case's outcome, in order, for a source that compiled. */
export async function runCases(evaluateCases: EngineCases, tenantId: string, source: string, locale: string, tests: ModuleTests): Promise<CaseOutcome[]> {
  const outcomes = await evaluateCases(tenantId, source, locale, tests.cases.map((c) => ({ rule: c.rule, context: c.context ?? {} })));
  return outcomes.map((outcome) => {
    if (outcome.ok) return { ok: true, value: outcome.value };
    // A case not run says nothing of the source: 500 or retry, never a failed case.
    if (outcome.code === EngineFailureCode.INTERNAL) throw new Error(`running a module's test cases failed: ${outcome.error}`);
    if (outcome.code === EngineFailureCode.CANCELLED) throw new PolicyRegistryError(503, outcome.code, `the test cases could not run: ${outcome.error}; retry later`);
    return { ok: false, code: outcome.code, error: outcome.error };
  });
}

/** A source that compiled, printed in `target` by the formatter (`policy fmt --locale`). */
export async function printSource(format: SourceFormatter, tenantId: string, source: string, locale: string, target: string): Promise<string> {
  const outcome = await format(tenantId, source, locale, target);
  if (outcome.ok) return outcome.text;
  // A stopped thread, a cancellation or a print past the time limit (a loaded engine) may pass;
  // anything else is a defect (the source compiled).
  if (outcome.code === EngineFailureCode.THREAD_STOPPED || outcome.code === EngineFailureCode.CANCELLED || outcome.code === TIMEOUT_CODE) {
    throw new PolicyRegistryError(503, outcome.code, `the policy source could not be printed in ${target}: ${outcome.error}; retry later`);
  }
  throw new Error(`a source of locale ${locale} that compiled could not be printed in ${target}: ${outcome.error}`);
}
