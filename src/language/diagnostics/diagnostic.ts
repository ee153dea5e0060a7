import type { Span } from '../ast/nodes.js';
import type { DiagnosticCode, DiagnosticText } from './codes/index.js';
import type { Severity } from './define-diagnostic.js';

export type { Severity } from './define-diagnostic.js';

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

/** A declared diagnostic given its place; `help` is present only when the declaration words one. */
export function placeDiagnostic(text: DiagnosticText, span: Span | null): Diagnostic {
  const diagnostic: Diagnostic = { code: text.code, severity: text.severity, message: text.message, span };
  if (text.help !== undefined) diagnostic.help = text.help;
  return diagnostic;
}

/** The service's `error` string: `"<code> <message> at <line>:<column>"`, no position when span is null. */
export function describeDiagnostic(diagnostic: Diagnostic): string {
  const base = `${diagnostic.code} ${diagnostic.message}`;
  return diagnostic.span ? `${base} at ${diagnostic.span.line}:${diagnostic.span.column}` : base;
}
