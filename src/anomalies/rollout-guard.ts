import { minuteOf } from '../evaluation/index.js';
import type { PolicyRepository, RolloutControl, RoutedSide, RunningRollout, SharedRolloutTally } from '../policies/index.js';
import type { RollupRepository } from '../rollups/index.js';
import type { AnomalyType } from './anomaly-enums.js';
import type { AnomalySettings } from './anomaly-settings.js';
import type { AnomalyRepository } from './anomaly-store.js';
import { isLive } from './anomaly-status-rules.js';
import { sampleMeanAndVariance, welchOneSided, wilsonInterval, type SampleMoments } from './statistics.js';

/** The guard acts as this actor in the chain. */
export const ROLLOUT_GUARD_ACTOR = 'rollout-guard';

/**
 * z of the guard's intervals (two-sided 99.9 %): it looks every few seconds for as long as a
 * rollout runs, so each look must be far stricter than 95 % for the run as a whole to stay quiet
 * on a canary as good as the stable version.
 */
export const GUARD_Z = 3.290526731491926;
/** One-sided p-value below which the canary's mean time counts as above the stable version's. */
export const GUARD_SLOWDOWN_SIGNIFICANCE = 0.001;
/** A slowdown smaller than this (ms, mean against mean) never aborts: warm-up compiles alone can cause one. */
export const GUARD_MIN_SLOWDOWN_MS = 1;
/** Rollouts a round looks at per tenant (the next round the next ones), so one tenant's many rollouts cannot crowd out the others'. */
export const GUARD_ROLLOUTS_PER_TENANT = 50;
/** Running rollouts read per page. */
const PAGE_SIZE = 200;
/** Anomalies about a rollout's version that abort it. */
const ABORTING_ANOMALIES: readonly AnomalyType[] = ['HIGH_FAILURE_RATE', 'PERFORMANCE_DEGRADATION'];

export interface RolloutGuardDeps {
  store: { policies: Pick<PolicyRepository, 'runningRollouts'>; rollups: Pick<RollupRepository, 'totals'>; anomalies: Pick<AnomalyRepository, 'latest'> };
  control: Pick<RolloutControl, 'abort'>;
  /** Where canaries' routed answers are counted: what a canary is compared on. */
  tally: Pick<SharedRolloutTally, 'read'>;
  /** minSamples, slowdownFactor and windowMinutes per tenant: the detector's own settings. */
  settings: Pick<AnomalySettings, 'effective'>;
  /** A rollout's check failed; the round goes on with the others. */
  onError?: (error: unknown, running: RunningRollout) => void;
  now?: () => Date;
}

export interface GuardVerdict {
  tenantId: string;
  policyModule: string;
  rollout: number;
  reason: string;
  anomalyId: string | null;
}

export interface GuardRound {
  /** Running rollouts looked at. */
  checked: number;
  aborted: GuardVerdict[];
  /** Rollouts whose check failed this round (told to `onError`); the next round tries again. */
  failed: number;
}

export interface RolloutGuard {
  /** Looks at every running rollout once (at most GUARD_ROLLOUTS_PER_TENANT per tenant) and aborts the ones that are worse. */
  round(): Promise<GuardRound>;
}

interface Side {
  count: number;
  failures: number;
  time: SampleMoments;
}

function sideOf(routed: RoutedSide): Side {
  return { count: routed.count, failures: routed.failures, time: { count: routed.count, sum: routed.timeSum, squares: routed.timeSquares } };
}

const percent = (failures: number, count: number) => `${((100 * failures) / Math.max(1, count)).toFixed(1)} %`;

/**
 * Why a canary is significantly worse than the stable version, or null: its failure rate's interval
 * lies wholly above the stable version's, or its mean time is above the stable's by the tenant's
 * slowdown factor (and GUARD_MIN_SLOWDOWN_MS) with a Welch test below GUARD_SLOWDOWN_SIGNIFICANCE.
 * Each side needs the tenant's minimum samples.
 */
export function canaryVerdict(canary: Side, stable: Side, settings: { minSamples: number; slowdownFactor: number }): string | null {
  if (canary.count < settings.minSamples || stable.count < settings.minSamples) return null;
  const canaryRate = wilsonInterval(canary.failures, canary.count, GUARD_Z);
  const stableRate = wilsonInterval(stable.failures, stable.count, GUARD_Z);
  if (canaryRate.lower > stableRate.upper) {
    return `failure rate ${percent(canary.failures, canary.count)} of ${canary.count} evaluations, against ${percent(stable.failures, stable.count)} of ${stable.count} for the stable version`;
  }
  const canaryMean = sampleMeanAndVariance(canary.time).mean;
  const stableMean = sampleMeanAndVariance(stable.time).mean;
  const slower = canaryMean > stableMean * settings.slowdownFactor && canaryMean - stableMean >= GUARD_MIN_SLOWDOWN_MS;
  if (slower && welchOneSided(canary.time, stable.time).pValue < GUARD_SLOWDOWN_SIGNIFICANCE) {
    return `mean time ${canaryMean.toFixed(2)} ms over ${canary.count} evaluations, against ${stableMean.toFixed(2)} ms for the stable version`;
  }
  return null;
}

/**
 * The rollout guard: each round compares every running canary with its stable version on the
 * answers the canary's route chose (the tally: pinned evaluations, which a caller can aim at either
 * version, and failures of the caller's own context are not among them), and aborts one that is
 * significantly worse; it also aborts any
 * rollout (canary or shadow) whose version has a live HIGH_FAILURE_RATE or PERFORMANCE_DEGRADATION
 * anomaly. An abort goes through the rollout control: recorded in the chain, seen by every process.
 */
export function createRolloutGuard(deps: RolloutGuardDeps): RolloutGuard {
  const now = deps.now ?? (() => new Date());
  const { policies, rollups, anomalies } = deps.store;

  async function liveAnomaly(tenantId: string, running: RunningRollout, functions: readonly string[]) {
    const { policyModule } = running.activation;
    const version = running.activation.rollout!.version;
    for (const policyFunction of functions) {
      for (const type of ABORTING_ANOMALIES) {
        const anomaly = await anomalies.latest(tenantId, { type, policyModule, policyFunction, version });
        if (anomaly !== null && isLive(anomaly.status)) return anomaly;
      }
    }
    return null;
  }

  async function verdictOf(running: RunningRollout): Promise<GuardVerdict | null> {
    const { tenantId, activation } = running;
    const rollout = activation.rollout!;
    const { policyModule } = activation;
    const settings = await deps.settings.effective(tenantId);
    const to = now().toISOString();
    // Rollups are per minute: from the minute the rollout started.
    const since = minuteOf(new Date(activation.occurredAt));
    const canaryTotals = await rollups.totals(tenantId, { from: since, to, policyModule, version: rollout.version });
    const verdict = { tenantId, policyModule, rollout: rollout.startedSeq };
    // Only the rules the version has answered (or shadowed) can have an anomaly about it.
    const anomaly = await liveAnomaly(tenantId, running, canaryTotals.map((t) => t.policyFunction));
    if (anomaly !== null) return { ...verdict, reason: `anomaly ${anomaly.type} about version ${rollout.version}: ${anomaly.observation.summary}`, anomalyId: anomaly.id };
    if (rollout.mode !== 'canary') return null;
    const { routed } = await deps.tally.read(tenantId, policyModule, rollout.startedSeq);
    const reason = canaryVerdict(sideOf(routed.rollout), sideOf(routed.stable), settings);
    return reason === null ? null : { ...verdict, reason: `the canary is worse than the stable version: ${reason}`, anomalyId: null };
  }

  /** The tenant's rollouts this round looks at: all, or a window of GUARD_ROLLOUTS_PER_TENANT that moves on each round. */
  function windowOf(list: readonly RunningRollout[], round: number): RunningRollout[] {
    if (list.length <= GUARD_ROLLOUTS_PER_TENANT) return [...list];
    const start = (round * GUARD_ROLLOUTS_PER_TENANT) % list.length;
    return Array.from({ length: GUARD_ROLLOUTS_PER_TENANT }, (_, i) => list[(start + i) % list.length]!);
  }

  async function runningByTenant(): Promise<Map<string, RunningRollout[]>> {
    const byTenant = new Map<string, RunningRollout[]>();
    let after: { tenantId: string; policyModule: string } | undefined;
    for (;;) {
      const page = await policies.runningRollouts({ limit: PAGE_SIZE, ...(after ? { after } : {}) });
      for (const running of page) {
        const list = byTenant.get(running.tenantId) ?? [];
        list.push(running);
        byTenant.set(running.tenantId, list);
      }
      if (page.length < PAGE_SIZE) return byTenant;
      const last = page.at(-1)!;
      after = { tenantId: last.tenantId, policyModule: last.activation.policyModule };
    }
  }

  let rounds = 0;
  return {
    async round() {
      const round = rounds++;
      const report: GuardRound = { checked: 0, aborted: [], failed: 0 };
      for (const list of (await runningByTenant()).values()) {
        for (const running of windowOf(list, round)) {
          report.checked += 1;
          try {
            const verdict = await verdictOf(running);
            if (verdict === null) continue;
            await deps.control.abort(verdict.tenantId, verdict.policyModule, ROLLOUT_GUARD_ACTOR, {
              reason: verdict.reason,
              anomalyId: verdict.anomalyId,
              rollout: verdict.rollout,
            });
            report.aborted.push(verdict);
          } catch (error) {
            // Promoted or aborted by someone else meanwhile: nothing left to guard.
            if ((error as { status?: number }).status === 409) continue;
            // One rollout's failure (its tally, its store) leaves the others guarded.
            report.failed += 1;
            deps.onError?.(error, running);
          }
        }
      }
      return report;
    },
  };
}
