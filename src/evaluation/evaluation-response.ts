import type { EvaluationOutcome } from '../engine/index.js';
import type { JsonValue, TraceEntry } from '../language/api-types.js';
import type { Diagnostic } from '../language/diagnostics/index.js';

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

export function toResponseItem(result: EvaluationOutcome, withTrace: boolean): EvaluationResponseItem {
  const item: EvaluationResponseItem = result.ok
    ? { result: result.value, error: null, executionTimeMs: result.executionTimeMs, diagnostics: [] }
    : {
        result: null,
        error: result.error,
        executionTimeMs: result.executionTimeMs,
        code: result.code,
        diagnostics: result.diagnostics.map(publicDiagnostic),
      };
  if (withTrace) item.trace = (result.trace ?? []).map((entry) => ({ ...entry, span: publicSpan(entry.span)! }));
  return item;
}
