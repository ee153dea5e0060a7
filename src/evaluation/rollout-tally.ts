/** What a rollout's tally counts: shadow comparisons, and the answers a canary's route chose. */

/**
 * How a shadow copy went: `agreed` (the same value, or the same error code), `disagreed` (another
 * value or error), `errors` (the shadow version failed where the answering one did not), `skipped`
 * (not run: too many copies pending in this process, or nothing could evaluate it).
 */
export type ShadowOutcome = 'agreed' | 'disagreed' | 'errors' | 'skipped';

/** What one side of a comparison produced, as a disagreement's sample shows it. */
export type ShadowSideResult = { ok: true; value: unknown } | { ok: false; code: string; error: string };

export interface ShadowSample {
  at: string;
  policyFunction: string;
  stable: ShadowSideResult;
  shadow: ShadowSideResult;
  /** SHA-256 of the context's canonical JSON: the same context always hashes the same. */
  contextHash: string;
  /** The context itself, only when the rollout captures contexts. */
  context?: unknown;
}

export interface ShadowComparison {
  tenantId: string;
  policyModule: string;
  rollout: number;
  outcome: ShadowOutcome;
  /** For a disagreement or an error. */
  sample?: ShadowSample;
}

/**
 * An answer the canary's route chose (not a pinned version, not an evaluation without the sticky
 * value), by the side that gave it: what the guard compares, so traffic a caller aims at one version
 * cannot tip the comparison. Failures caused by the caller's context (PL5xxx) are not observed.
 */
export interface RoutedObservation {
  tenantId: string;
  policyModule: string;
  rollout: number;
  side: 'stable' | 'rollout';
  ok: boolean;
  executionTimeMs: number;
}

/** Where comparisons and routed answers are counted, per tenant, module and rollout (the policies' rollout tally). */
export interface RolloutTally {
  count(comparison: ShadowComparison): void;
  observe(observation: RoutedObservation): void;
}
