import { THREAD_STOPPED_ERROR, type ItemResult } from '../engine/index.js';
import type { JsonValue, TraceEntry } from '../language/api-types.js';
import type { Diagnostic } from '../language/diagnostics/index.js';
import { EvaluationErrorCode } from './evaluation-errors.js';

/** A source position as clients see it. */
export interface PublicSpan {
  start: number;
  end: number;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface PublicDiagnostic {
  code: string;
  severity: string;
  message: string;
  span: PublicSpan | null;
  help?: string;
}

/**
 * One evaluation as answered: the interface's `{result, error, executionTimeMs}`, plus `code` on
 * failure, the `diagnostics` (empty on success) and the decision `trace` when asked for.
 */
export interface EvaluationResponseItem {
  result: JsonValue | null;
  error: string | null;
  executionTimeMs: number;
  code?: string;
  diagnostics: PublicDiagnostic[];
  trace?: TraceEntry[];
}

/** Only the documented span fields: whatever else an implementation attached stays inside. */
function publicSpan(span: PublicSpan | null | undefined): PublicSpan | null {
  if (!span) return null;
  const { start, end, line, column, endLine, endColumn } = span;
  return { start, end, line, column, endLine, endColumn };
}

export function publicDiagnostic(diagnostic: Diagnostic): PublicDiagnostic {
  const view: PublicDiagnostic = {
    code: diagnostic.code,
    severity: diagnostic.severity,
    message: diagnostic.message,
    span: publicSpan(diagnostic.span),
  };
  if (diagnostic.help !== undefined) view.help = diagnostic.help;
  return view;
}

/** The code of a failed item: its first error diagnostic (`PL…`), else the engine's reason. */
export function failureCode(result: ItemResult): string {
  const first = result.diagnostics.find((d) => d.severity === 'error') ?? result.diagnostics[0];
  if (first) return first.code;
  return result.error === THREAD_STOPPED_ERROR ? EvaluationErrorCode.THREAD_STOPPED : EvaluationErrorCode.INTERNAL;
}

export function toResponseItem(result: ItemResult, withTrace: boolean): EvaluationResponseItem {
  const item: EvaluationResponseItem = result.ok
    ? { result: result.value, error: null, executionTimeMs: result.executionTimeMs, diagnostics: [] }
    : {
        result: null,
        error: result.error ?? 'evaluation failed',
        executionTimeMs: result.executionTimeMs,
        code: failureCode(result),
        diagnostics: result.diagnostics.map(publicDiagnostic),
      };
  if (withTrace) item.trace = (result.trace ?? []).map((entry) => ({ ...entry, span: publicSpan(entry.span)! }));
  return item;
}

/** A batch item that was not evaluated (malformed, or nothing can evaluate its kind). */
export function rejectedItem(code: string, message: string): EvaluationResponseItem {
  return { result: null, error: message, executionTimeMs: 0, code, diagnostics: [] };
}
