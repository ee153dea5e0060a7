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

/** A version evaluating a copy of an evaluation off the answer path, and the rollout it belongs to. */
export interface ShadowCopy {
  policy: ResolvedPolicy;
  /** The rollout's number (its ROLLOUT_STARTED seq): the tally its comparisons count in. */
  rollout: number;
  /** Keep the context of a disagreement in the tally's sample. */
  captureContexts: boolean;
}

/** A canary's choice of the version that answers: the rollout, and the side it chose. */
export interface RoutedChoice {
  rollout: number;
  side: 'stable' | 'rollout';
}

/**
 * The module's running rollout: per evaluation, the version that answers, any shadow copy, and
 * when a canary's route chose the answer (not a missing sticky value or rule), which side.
 */
export interface RolloutRoute {
  pick(context: unknown): { answer: ResolvedPolicy; shadow: ShadowCopy | null; routed: RoutedChoice | null };
}

export type PolicyResolution =
  /** `rollout` when a rollout of the module runs and the reference pinned no version. */
  | { ok: true; policy: ResolvedPolicy; rollout?: RolloutRoute }
  /** The reference names nothing the tenant can see: the item fails on its own (404 when alone). */
  | { ok: false; code: string; message: string };

/**
 * Finds the version of a deployed policy that answers a reference: the pinned version, else the
 * tenant's active one, else the built-in module. Implemented by the policies' version resolver.
 */
export interface PolicyResolver {
  resolve(tenantId: string, request: Pick<StoredPolicyRequest, 'policyModule' | 'policyFunction' | 'version'>): Promise<PolicyResolution>;
}
