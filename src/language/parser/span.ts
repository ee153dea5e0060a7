import type { Span } from '../ast/nodes.js';

/** A fresh span from the start of `from` to the end of `to` (tokens are spans too). */
export function spanFrom(from: Span, to: Span): Span {
  return {
    start: from.start,
    end: to.end,
    line: from.line,
    column: from.column,
    endLine: to.endLine,
    endColumn: to.endColumn,
  };
}

export function spanOf(span: Span): Span {
  return spanFrom(span, span);
}
