import type { Span } from '../ast/nodes.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';

/** Collects the checker's diagnostics. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];
  errorCount = 0;

  error(code: DiagnosticCode, message: string, span: Span, help?: string): void {
    this.errorCount++;
    this.diagnostics.push(help === undefined ? { code, severity: 'error', message, span } : { code, severity: 'error', message, span, help });
  }

  warning(code: DiagnosticCode, message: string, span: Span): void {
    this.diagnostics.push({ code, severity: 'warning', message, span });
  }

  /** Diagnostics in source order (stable for equal positions). */
  sorted(): Diagnostic[] {
    return this.diagnostics
      .map((d, i) => ({ d, i }))
      .sort((a, b) => (a.d.span?.start ?? 0) - (b.d.span?.start ?? 0) || a.i - b.i)
      .map(({ d }) => d);
  }
}
