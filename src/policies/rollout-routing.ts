import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/index.js';
import type { ResolvedPolicy, RolloutRoute } from '../evaluation/index.js';
import type { RolloutTerms } from './policy-store.js';

/** The value at a dotted path of the context (`applicant.id`); undefined when any step is missing. */
export function valueAtPath(context: unknown, path: string): unknown {
  let value: unknown = context;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/**
 * Where a sticky value falls in a rollout, 0 ≤ n < 100: a hash of the value's canonical JSON,
 * salted with the rollout, so a value keeps its version for the whole rollout, and each rollout
 * draws its own share of values (not always the same customers first). Null for a value without a
 * canonical form (a lone surrogate in a string): it sticks to nothing.
 */
export function stickyPercentile(rolloutSalt: string, value: unknown): number | null {
  let text: string;
  try {
    text = canonicalJson(value);
  } catch {
    return null;
  }
  const digest = createHash('sha256').update(rolloutSalt).update('\u0000').update(text).digest();
  return Math.floor((digest.readUInt32BE(0) / 2 ** 32) * 100);
}

/**
 * A running rollout's route: for a canary, `percent` of evaluations are answered by the new
 * version, picked by the value at `stickyKey` (an evaluation without a usable value stays on the
 * stable version, outside the comparison) or at random without a key; for a shadow, the stable
 * version answers and `percent` of evaluations (at random) are copied to the new version.
 * `candidate` is null when the new version lacks the rule: the stable version answers alone.
 */
export function createRolloutRoute(
  terms: RolloutTerms,
  rolloutSalt: string,
  stable: ResolvedPolicy,
  candidate: ResolvedPolicy | null,
  random: () => number = Math.random,
): RolloutRoute {
  const alone = { answer: stable, shadow: null, routed: null };
  if (candidate === null) return { pick: () => alone };
  if (terms.mode === 'shadow') {
    const copied = { answer: stable, shadow: { policy: candidate, rollout: terms.startedSeq, captureContexts: terms.captureContexts }, routed: null };
    return { pick: () => (random() * 100 < terms.percent ? copied : alone) };
  }
  const canary = { answer: candidate, shadow: null, routed: { rollout: terms.startedSeq, side: 'rollout' as const } };
  const kept = { answer: stable, shadow: null, routed: { rollout: terms.startedSeq, side: 'stable' as const } };
  const { stickyKey } = terms;
  if (stickyKey === null) return { pick: () => (random() * 100 < terms.percent ? canary : kept) };
  return {
    pick(context) {
      const value = valueAtPath(context, stickyKey);
      const percentile = value === undefined ? null : stickyPercentile(rolloutSalt, value);
      // Without a sticky value the route chose nothing: the stable version answers, unobserved.
      if (percentile === null) return alone;
      return percentile < terms.percent ? canary : kept;
    },
  };
}
