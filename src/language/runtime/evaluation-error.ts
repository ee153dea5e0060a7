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

/**
 * `Fail with` (PL3004): the message is the rule's own text. An empty text still gets a message,
 * so the client's error never reads as a bare code.
 */
export function ruleFailure(message: string, span: Span): EvaluationError {
  return new EvaluationError('PL3004', message === '' ? 'the rule failed with an empty message' : message, span);
}
