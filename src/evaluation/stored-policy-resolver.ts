import type { ItemResult } from '../engine/index.js';
import type { StoredPolicyRequest } from './evaluation-request.js';

/** A deployed policy ready to run: its source and what audit records and rollups name. */
export interface ResolvedPolicy {
  source: string;
  locale: string;
  functionName: string;
  policyModule: string;
  version: number;
  versionId: string;
}

export type PolicyResolution =
  | { ok: true; policy: ResolvedPolicy }
  /** The item fails on its own with this code and message (unknown module, function or version). */
  | { ok: false; code: string; message: string };

export interface StoredPolicyEvaluation {
  request: StoredPolicyRequest;
  policy: ResolvedPolicy;
  result: ItemResult;
}

/**
 * Plugs deployed policies into batch evaluation. The evaluation service resolves all references of
 * a batch in one call, evaluates them with the source items in one dispatch, and hands the outcomes
 * back for the stored-policy audit records (POLICY_EVALUATED) and rollups.
 */
export interface StoredPolicyResolver {
  /** One resolution per reference, in order. */
  resolve(tenantId: string, requests: readonly StoredPolicyRequest[]): Promise<PolicyResolution[]>;
  /** Resolves once the evaluations are recorded as durably as source evaluations are audited. */
  recordEvaluations(tenantId: string, actorId: string, evaluations: readonly StoredPolicyEvaluation[]): Promise<void>;
}
