import type { Span } from '../ast/nodes.js';
import { placeDiagnostic, type Diagnostic, type DiagnosticText } from '../diagnostics/index.js';
import { MAX_DIAGNOSTICS } from '../lexer/index.js';

/** Collects the checker's diagnostics. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];
  errorCount = 0;

  /** Reports a declared diagnostic (an error or, as its declaration says, a warning) at `span`. */
  report(text: DiagnosticText, span: Span): void {
    if (text.severity === 'error') this.errorCount++;
    this.diagnostics.push(placeDiagnostic(text, span));
  }

  /**
   * Diagnostics in source order (stable for equal positions): the first MAX_DIAGNOSTICS errors and
   * the first MAX_DIAGNOSTICS warnings, so a source cannot make a report of any size, and a refused
   * module always shows an error.
   */
  sorted(): Diagnostic[] {
    const kept = { error: 0, warning: 0 };
    return this.diagnostics
      .map((d, i) => ({ d, i }))
      .sort((a, b) => (a.d.span?.start ?? 0) - (b.d.span?.start ?? 0) || a.i - b.i)
      .map(({ d }) => d)
      .filter((d) => ++kept[d.severity] <= MAX_DIAGNOSTICS);
  }
}
