import { createHash } from 'node:crypto';
import type { AuditEvent } from '../audit/index.js';
import type { EvaluationOutcome } from '../engine/index.js';
import { isName, wellFormedText } from '../kernel/index.js';
import type { SourceEvaluationRequest } from './evaluation-request.js';

/**
 * Event type of an evaluation of source text sent in a request. Distinct from POLICY_EVALUATED
 * (stored policies), so anomaly detection over deployed versions never counts ad-hoc source.
 */
export const SOURCE_EVALUATED = 'SOURCE_EVALUATED';

/** SHA-256 hex of the source's UTF-8 bytes: identifies the policy text without storing it. */
export function sourceHash(source: string): string {
  return createHash('sha256').update(source, 'utf8').digest('hex');
}

/**
 * The audit record of one source evaluation. The context stays out (it may carry personal data and
 * is unbounded); the source is kept by hash only.
 */
export function sourceEvaluatedEvent(
  actorId: string,
  request: SourceEvaluationRequest,
  hash: string,
  result: EvaluationOutcome,
): AuditEvent {
  const payload: Record<string, unknown> = {
    sourceHash: hash,
    functionName: request.functionName,
    locale: request.locale,
    success: result.ok,
    executionTimeMs: result.executionTimeMs,
  };
  if (!result.ok) payload.error = wellFormedText(result.error);
  return {
    eventType: SOURCE_EVALUATED,
    // Audit names are bounded; a module name beyond that is recorded as unknown rather than failing the request.
    policyModule: result.moduleName !== undefined && isName(result.moduleName) ? result.moduleName : null,
    policyFunction: request.functionName,
    actorId,
    payload,
  };
}
