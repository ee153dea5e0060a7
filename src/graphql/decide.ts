import type { EvaluationOutcome } from '../engine/index.js';

/**
 * Evaluates `policyModule.policyFunction` for a tenant: the tenant's active version of the module
 * when it deployed one, else the built-in one. `args` are the rule's parameters in order (the
 * positional context of docs/language.md §7). Item failures resolve as `ok: false`; a rejection means
 * nothing could evaluate (EvaluationUnavailableError) or an unexpected fault.
 */
export type DecideFn = (tenantId: string, policyModule: string, policyFunction: string, args: unknown[]) => Promise<EvaluationOutcome>;
