import type { EvaluationAnswer, EvaluationService } from '../evaluation/index.js';

/** A decision's outcome and, when it was evaluated, the receipt of its audit record. */
export type DomainDecision = Pick<EvaluationAnswer, 'result' | 'receipt'>;

/** `caller.actorId` is recorded as the actor of the decision's POLICY_EVALUATED record. */
export type DomainDecider = (
  caller: { tenantId: string; actorId: string },
  policyModule: string,
  policyFunction: string,
  args: unknown[],
) => Promise<DomainDecision>;

/**
 * Decisions of the GraphQL domain queries, through the one evaluation path: the tenant's active
 * version of the module when it deployed one, else the built-in module; audited (POLICY_EVALUATED)
 * and counted in the rollups. A module or rule the tenant cannot see answers as a failed
 * evaluation, with no receipt (nothing was recorded); a rejection means nothing could evaluate.
 */
export function createDomainDecider(service: Pick<EvaluationService, 'evaluate'>): DomainDecider {
  return async ({ tenantId, actorId }, policyModule, policyFunction, args) => {
    const [answer] = await service.evaluate(
      { tenantId, actorId },
      [{ kind: 'stored', request: { policyModule, policyFunction, context: args } }],
      { trace: false },
    );
    const { result, receipt } = answer!;
    return receipt === undefined ? { result } : { result, receipt };
  };
}
