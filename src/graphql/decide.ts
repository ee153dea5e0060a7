import type { AuditReceipt } from '../audit/index.js';
import type { EvaluationOutcome } from '../engine/index.js';

/** One decision's outcome, and the receipt of its audit record when it was evaluated (and so recorded). */
export interface Decision {
  result: EvaluationOutcome;
  /** Absent when nothing was evaluated (a module or rule the tenant cannot see). */
  receipt?: AuditReceipt;
}

/**
 * Evaluates `policyModule.policyFunction` for a caller's tenant: the tenant's active version of the module
 * when it deployed one, else the built-in one. `args` are the rule's parameters in order (the
 * positional context of docs/language.md §7). Item failures resolve as `ok: false`; a rejection means
 * nothing could evaluate (EvaluationUnavailableError) or an unexpected fault.
 */
export type DecideFn = (caller: DecisionCaller, policyModule: string, policyFunction: string, args: unknown[]) => Promise<Decision>;

/** Whose decision it is, and the actor its audit record names. */
export interface DecisionCaller {
  tenantId: string;
  actorId: string;
}
