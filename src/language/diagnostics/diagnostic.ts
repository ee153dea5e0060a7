import type { Span } from '../ast/nodes.js';
import type { DiagnosticCode } from './codes.js';

export type Severity = 'error' | 'warning';

/**
 * Every problem the language reports, from lexing to evaluation. Never thrown across the public API.
 * Messages are lowercase, put user text in backticks and never name internal types.
 * `span` is null only for problems with no place in the source (context input, locale, entry).
 */
export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  span: Span | null;
  /** Optional separate help text, e.g. "write it in backticks: `result`". */
  help?: string;
}

/** The service's `error` string: `"<code> <message> at <line>:<column>"`, no position when span is null. */
export function describeDiagnostic(diagnostic: Diagnostic): string {
  const base = `${diagnostic.code} ${diagnostic.message}`;
  return diagnostic.span ? `${base} at ${diagnostic.span.line}:${diagnostic.span.column}` : base;
}
