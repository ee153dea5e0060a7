import type { Span } from '../ast/nodes.js';
import { placeDiagnostic, type Diagnostic, type DiagnosticText } from '../diagnostics/index.js';

/** A span may be a token (tokens are spans); only the six span fields are kept. */
export function syntaxDiagnostic(text: DiagnosticText, span: Span): Diagnostic {
  const { start, end, line, column, endLine, endColumn } = span;
  return placeDiagnostic(text, { start, end, line, column, endLine, endColumn });
}

/** A span on one line, from offsets and the offset where that line starts. */
export function lineSpan(start: number, end: number, line: number, lineStart: number): Span {
  return { start, end, line, column: start - lineStart + 1, endLine: line, endColumn: end - lineStart + 1 };
}
