import type { JsonValue, TraceEntry } from '../language/api-types.js';
import type { Diagnostic } from '../language/diagnostics/index.js';

/** One evaluation request: a policy source, its locale, the rule to call and its input. */
export interface EvaluationItem {
  source: string;
  /** Locale tag as the client sent it (`en-US`, `de`, `zh_cn`…); an unsupported tag is an item error. */
  locale: string;
  functionName: string;
  /** Object keyed by parameter name or array in parameter order (LANGUAGE.md §7). */
  context: unknown;
  trace?: boolean;
}

/**
 * The outcome of one item. Items never throw: every failure (syntax, unknown function, bad input,
 * runtime error, timeout, thread crash) is `ok: false` with `error` set.
 */
export interface ItemResult {
  ok: boolean;
  /** The rule's value when `ok`, otherwise null. */
  value: JsonValue | null;
  /** All diagnostics of the failure (empty on success, and for failures without a language diagnostic). */
  diagnostics: Diagnostic[];
  /** `describeDiagnostic(diagnostics[0])` for language failures; null when `ok`. */
  error: string | null;
  /** Wall time of compile (or cache lookup) plus evaluation, in milliseconds. */
  executionTimeMs: number;
  trace?: TraceEntry[];
  /** Name of the module when the source compiled (audit records name it); absent otherwise. */
  moduleName?: string;
}
