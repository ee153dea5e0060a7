import type { Span } from '../ast/nodes.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';

/** A span may be a token (tokens are spans); only the six span fields are kept. */
export function syntaxDiagnostic(code: DiagnosticCode, message: string, span: Span, help?: string): Diagnostic {
  const { start, end, line, column, endLine, endColumn } = span;
  const diagnostic: Diagnostic = {
    code,
    severity: 'error',
    message,
    span: { start, end, line, column, endLine, endColumn },
  };
  if (help !== undefined) diagnostic.help = help;
  return diagnostic;
}

/** A span on one line, from offsets and the offset where that line starts. */
export function lineSpan(start: number, end: number, line: number, lineStart: number): Span {
  return { start, end, line, column: start - lineStart + 1, endLine: line, endColumn: end - lineStart + 1 };
}
