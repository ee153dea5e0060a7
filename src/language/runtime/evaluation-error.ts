import type { Span } from '../ast/nodes.js';
import { placeDiagnostic, RuleFailed, type Diagnostic, type DiagnosticCode, type DiagnosticText } from '../diagnostics/index.js';

/**
 * A runtime failure inside compiled code (PL3xxx, PL4xxx). Thrown to unwind the closure tree in
 * one step and turned into a diagnostic by `evaluate`; it never leaves the language API.
 */
export class EvaluationError extends Error {
  readonly code: DiagnosticCode;

  constructor(
    private readonly text: DiagnosticText,
    readonly span: Span | null,
  ) {
    super(text.message);
    this.name = 'EvaluationError';
    this.code = text.code;
  }

  toDiagnostic(): Diagnostic {
    return placeDiagnostic(this.text, this.span);
  }
}

/** `Fail with`: the message is the rule's own text. */
export function ruleFailure(message: string, span: Span): EvaluationError {
  return new EvaluationError(RuleFailed(message), span);
}
