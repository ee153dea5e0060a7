import type { EvaluationService } from '../evaluation/index.js';
import { SERVICE_ACTOR_PREFIXES } from '../kernel/index.js';
import type { StepEvaluation } from './workflow-decision.js';
import type { WorkflowRecord } from './workflow-store.js';

/**
 * A step's rule, evaluated like any stored policy of the pinned version (audited as
 * POLICY_EVALUATED with the workflow as actor, counted in the rollups anomaly detection reads).
 */
export async function evaluateStep(
  evaluation: Pick<EvaluationService, 'evaluate'>,
  tenantId: string,
  record: WorkflowRecord,
  rule: string,
  args: unknown[],
): Promise<StepEvaluation> {
  const [answer] = await evaluation.evaluate(
    { tenantId, actorId: `${SERVICE_ACTOR_PREFIXES.workflow}${record.workflowId}` },
    [{ kind: 'stored', request: { policyModule: record.policyModule, policyFunction: rule, version: record.version, context: args } }],
    { trace: false },
  );
  const result = answer!.result;
  if (!result.ok) return { ok: false, error: result.error, executionTimeMs: result.executionTimeMs };
  if (typeof result.value !== 'boolean') return { ok: false, error: `rule \`${rule}\` answered a non-Bool value`, executionTimeMs: result.executionTimeMs };
  return { ok: true, result: result.value, executionTimeMs: result.executionTimeMs };
}
