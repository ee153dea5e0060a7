// Requests and results as tests write them: the engine speaks in batches of tenant-scoped requests.
import {
  deserializeResult,
  toBatch,
  type EnginePool,
  type EngineRequest,
  type EvaluateRequest,
  type EvaluationOutcome,
  type ItemResult,
} from '../../src/engine/index.js';

export const TEST_TENANT = 'tenant-a';

/** An evaluate request for `tenant-a` unless `extra` says otherwise. */
export function evaluateRequest(source: string, functionName: string, context: unknown, extra: Partial<EvaluateRequest> = {}): EvaluateRequest {
  return { kind: 'evaluate', tenantId: TEST_TENANT, source, locale: 'en-US', functionName, context, ...extra };
}

/** Runs requests as one batch on the pool and answers decoded results in order. */
export async function runOnPool(pool: EnginePool, requests: readonly EngineRequest[]): Promise<ItemResult[]> {
  const results = await pool.run(toBatch(requests)).results;
  return results.map(deserializeResult);
}

/** The result as an evaluation outcome (fails the test when it is a compile outcome). */
export function evaluation(result: ItemResult | undefined): EvaluationOutcome {
  if (result?.kind !== 'evaluated') throw new Error(`expected an evaluation result, got ${JSON.stringify(result)}`);
  return result;
}
