import type { AuditEvent } from '../audit/index.js';
import type { EvaluationOutcome } from '../engine/index.js';
import { wellFormedText } from '../kernel/index.js';
import type { ResolvedPolicy } from './policy-resolver.js';

/** Event type of an evaluation of a deployed policy (interface spec, Events). */
export const POLICY_EVALUATED = 'POLICY_EVALUATED';

/** The context stays out of the record (personal data, unbounded); the version says what ran. */
export function policyEvaluatedEvent(actorId: string, policy: ResolvedPolicy, result: EvaluationOutcome): AuditEvent {
  const payload: Record<string, unknown> = {
    policyModule: policy.policyModule,
    policyFunction: policy.functionName,
    versionId: policy.versionId,
    version: policy.version,
    success: result.ok,
    executionTimeMs: result.executionTimeMs,
  };
  if (!result.ok) payload.error = wellFormedText(result.error);
  return { eventType: POLICY_EVALUATED, policyModule: policy.policyModule, policyFunction: policy.functionName, actorId, payload };
}
