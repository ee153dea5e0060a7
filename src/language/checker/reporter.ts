import type { Span } from '../ast/nodes.js';
import { placeDiagnostic, type Diagnostic, type DiagnosticText } from '../diagnostics/index.js';

/** Collects the checker's diagnostics. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];
  errorCount = 0;

  /** Reports a declared diagnostic (an error or, as its declaration says, a warning) at `span`. */
  report(text: DiagnosticText, span: Span): void {
    if (text.severity === 'error') this.errorCount++;
    this.diagnostics.push(placeDiagnostic(text, span));
  }

  /** Diagnostics in source order (stable for equal positions). */
  sorted(): Diagnostic[] {
    return this.diagnostics
      .map((d, i) => ({ d, i }))
      .sort((a, b) => (a.d.span?.start ?? 0) - (b.d.span?.start ?? 0) || a.i - b.i)
      .map(({ d }) => d);
  }
}
