/**
 * What the engine answers for each batch item. Items never throw: every failure (syntax, unknown
 * function, bad input, runtime error, timeout, thread crash, cancellation) is an `ok: false`
 * result with a stable `code`.
 */
import type { FunctionSignature, JsonValue, TraceEntry, WorkflowSignature } from '../language/api-types.js';
import { describeDiagnostic, EvaluationTimedOut, placeDiagnostic, type Diagnostic } from '../language/diagnostics/index.js';

/** Codes of failures that have no language diagnostic (the engine's own). */
export const EngineFailureCode = {
  /** The thread running the item stopped twice (crash, out of memory). */
  THREAD_STOPPED: 'ERR_EVALUATION_THREAD_STOPPED',
  /** The engine failed on this item without a language diagnostic (a defect; logged in the worker). */
  INTERNAL: 'ERR_EVALUATION_INTERNAL',
  /** Nobody waits for the item any more (answered already, or the client went away): not run. */
  CANCELLED: 'ERR_EVALUATION_CANCELLED',
  /** The item is not a well-formed request (only reachable by bypassing the API). */
  ITEM_INVALID: 'ERR_EVALUATION_ITEM_INVALID',
} as const;

export const THREAD_STOPPED_ERROR = 'evaluation thread stopped unexpectedly';
export const INTERNAL_EVALUATION_ERROR = 'internal error while evaluating the policy';
export const CANCELLED_ERROR = 'evaluation cancelled: nobody waits for its answer any more';

export interface EvaluationSuccess {
  kind: 'evaluated';
  ok: true;
  value: JsonValue;
  /** Name of the module that ran (audit records name it). */
  moduleName: string;
  /** Wall time of compile (or cache lookup) plus evaluation, in milliseconds. */
  executionTimeMs: number;
  trace?: TraceEntry[];
}

export interface EvaluationFailure {
  kind: 'evaluated';
  ok: false;
  /** The first error diagnostic's code (`PL…`), else an EngineFailureCode. */
  code: string;
  /** `describeDiagnostic(first error)` for language failures. */
  error: string;
  /** All diagnostics of the failure; empty for engine failures. */
  diagnostics: Diagnostic[];
  executionTimeMs: number;
  /** Present when the source compiled. */
  moduleName?: string;
  trace?: TraceEntry[];
}

/** The parts of a compiled module a deploy stores. */
export interface CompiledModuleSummary {
  moduleName: string;
  /** Canonical locale tag of the source. */
  locale: string;
  functions: FunctionSignature[];
  /** The module's workflows, each with its parameters and steps. */
  workflows: WorkflowSignature[];
}

export interface CompileSuccess {
  kind: 'compiled';
  ok: true;
  module: CompiledModuleSummary;
  /** Warnings only (a source with errors does not compile). */
  diagnostics: Diagnostic[];
  executionTimeMs: number;
}

export interface CompileFailure {
  kind: 'compiled';
  ok: false;
  code: string;
  error: string;
  diagnostics: Diagnostic[];
  executionTimeMs: number;
}

export interface FormatSuccess {
  kind: 'formatted';
  ok: true;
  /** The module printed in the target locale. */
  text: string;
  executionTimeMs: number;
}

export interface FormatFailure {
  kind: 'formatted';
  ok: false;
  code: string;
  error: string;
  diagnostics: Diagnostic[];
  executionTimeMs: number;
}

export type EvaluationOutcome = EvaluationSuccess | EvaluationFailure;
export type CompileOutcome = CompileSuccess | CompileFailure;
export type FormatOutcome = FormatSuccess | FormatFailure;
export type ItemResult = EvaluationOutcome | CompileOutcome | FormatOutcome;

/**
 * An item result as JSON text, made where the result is made (in the thread), so the worker's
 * main thread only concatenates replies and their size is known before they are sent.
 */
export interface SerializedItemResult {
  ok: boolean;
  json: string;
}

/** The kind of result a request of this kind answers: a malformed one (any other kind) answers an evaluation's. */
export function resultKindOf(requestKind: unknown): ItemResult['kind'] {
  return requestKind === 'compile' ? 'compiled' : requestKind === 'format' ? 'formatted' : 'evaluated';
}

/** The failure of a `kind` item described by its diagnostics (the first error names it). */
export function diagnosticFailure<K extends ItemResult['kind']>(
  kind: K,
  diagnostics: Diagnostic[],
  executionTimeMs: number,
): Extract<ItemResult, { kind: K; ok: false }> {
  const first = diagnostics.find((d) => d.severity === 'error');
  if (first === undefined) return engineFailure(kind, EngineFailureCode.INTERNAL, INTERNAL_EVALUATION_ERROR, executionTimeMs, diagnostics);
  return { kind, ok: false, code: first.code, error: describeDiagnostic(first), diagnostics, executionTimeMs } as Extract<
    ItemResult,
    { kind: K; ok: false }
  >;
}

/** A failure of the engine rather than of the policy. */
export function engineFailure<K extends ItemResult['kind']>(
  kind: K,
  code: string,
  error: string,
  executionTimeMs = 0,
  diagnostics: Diagnostic[] = [],
): Extract<ItemResult, { kind: K; ok: false }> {
  return { kind, ok: false, code, error, diagnostics, executionTimeMs } as Extract<ItemResult, { kind: K; ok: false }>;
}

/** The diagnostic code of an item stopped at its wall-time limit (EVALUATION_TIMEOUT_MS). */
export const TIMEOUT_CODE = EvaluationTimedOut.code;

export function timeoutFailure<K extends ItemResult['kind']>(kind: K, limitMs: number, elapsedMs: number) {
  return diagnosticFailure(kind, [placeDiagnostic(EvaluationTimedOut(limitMs), null)], elapsedMs);
}

export function serializeResult(result: ItemResult): SerializedItemResult {
  return { ok: result.ok, json: JSON.stringify(result) };
}

export function deserializeResult(serialized: SerializedItemResult): ItemResult {
  return JSON.parse(serialized.json) as ItemResult;
}
