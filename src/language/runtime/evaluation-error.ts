import type { Span } from '../ast/nodes.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';

/**
 * A runtime failure inside compiled code (PL3xxx, PL4xxx). Thrown to unwind the closure tree in
 * one step and turned into a diagnostic by `evaluate`; it never leaves the language API.
 */
export class EvaluationError extends Error {
  constructor(
    readonly code: DiagnosticCode,
    message: string,
    readonly span: Span | null,
  ) {
    super(message);
    this.name = 'EvaluationError';
  }

  toDiagnostic(): Diagnostic {
    return { code: this.code, severity: 'error', message: this.message, span: this.span };
  }
}
