import type { RollupTotals } from '../rollups/index.js';
import type { AnomalySeverity, AnomalyType } from './anomaly-enums.js';
import type { Assessor, DetectionWindow } from './assessment.js';
import { SLOWDOWN_SIGNIFICANCE } from './detection-settings.js';
import { sampleMeanAndVariance, welchOneSided, wilsonLowerBound, type SampleMoments } from './statistics.js';

/** A severity for a size of deviation: the first cut-off the value reaches, else LOW. */
type SeverityCutOffs = ReadonlyArray<readonly [number, AnomalySeverity]>;

/** HIGH_FAILURE_RATE: the failure rate as a multiple of the threshold (0.05: 40 %, 20 %, 10 %). */
export const FAILURE_RATE_SEVERITY: SeverityCutOffs = [
  [8, 'CRITICAL'],
  [4, 'HIGH'],
  [2, 'MEDIUM'],
];
/** ZOMBIE_VERSION: the superseded version's share of its function's evaluations. */
export const ZOMBIE_SEVERITY: SeverityCutOffs = [
  [0.5, 'CRITICAL'],
  [0.2, 'HIGH'],
  [0.05, 'MEDIUM'],
];
/** PERFORMANCE_DEGRADATION: window mean over baseline mean. */
export const SLOWDOWN_SEVERITY: SeverityCutOffs = [
  [5, 'CRITICAL'],
  [3, 'HIGH'],
  [2, 'MEDIUM'],
];

export function severityOf(value: number, cutOffs: SeverityCutOffs): AnomalySeverity {
  for (const [atLeast, severity] of cutOffs) if (value >= atLeast) return severity;
  return 'LOW';
}

/** Six significant digits: metrics stay readable JSON without losing what matters. */
function tidy(value: number): number {
  return Number.isFinite(value) ? Number(value.toPrecision(6)) : 0;
}

function moments(totals: RollupTotals | null): SampleMoments {
  return totals === null ? { count: 0, sum: 0, squares: 0 } : { count: totals.count, sum: totals.timeSum, squares: totals.timeSquares };
}

function windowBounds(window: DetectionWindow) {
  return { windowStart: window.start, windowEnd: window.end };
}

export const assessHighFailureRate: Assessor = (evidence, window, settings) => {
  const count = evidence.window?.count ?? 0;
  const failures = evidence.window?.failures ?? 0;
  const rate = count === 0 ? 0 : failures / count;
  const lowerBound = wilsonLowerBound(failures, count);
  const baselineCount = evidence.baseline?.count ?? 0;
  const baselineRate = baselineCount === 0 ? 0 : (evidence.baseline?.failures ?? 0) / baselineCount;
  const threshold = settings.failureRateThreshold;
  // The Wilson bound keeps small samples quiet: 3 failures of 10 is 30 %, but could well be under 5 %.
  const holds = count >= settings.minSamples && rate > threshold && lowerBound > threshold;
  return {
    type: 'HIGH_FAILURE_RATE',
    holds,
    severity: holds ? severityOf(rate / threshold, FAILURE_RATE_SEVERITY) : null,
    metrics: {
      failureRate: tidy(rate),
      baselineFailureRate: tidy(baselineRate),
      sampleSize: count,
      failures,
      wilsonLowerBound: tidy(lowerBound),
      threshold,
      baselineSampleSize: baselineCount,
      ...windowBounds(window),
    },
  };
};

export const assessZombieVersion: Assessor = (evidence, window, settings) => {
  const count = evidence.window?.count ?? 0;
  const { activeVersion, supersededSince } = evidence.standing;
  const share = evidence.functionWindowCount === 0 ? 0 : count / evidence.functionWindowCount;
  const supersededFor = supersededSince === null ? null : Date.parse(window.end) - Date.parse(supersededSince);
  const holds = supersededFor !== null && supersededFor >= settings.zombieGraceMinutes * 60_000 && count >= settings.minSamples;
  return {
    type: 'ZOMBIE_VERSION',
    holds,
    severity: holds ? severityOf(share, ZOMBIE_SEVERITY) : null,
    metrics: {
      sampleSize: count,
      evaluations: count,
      shareOfTraffic: tidy(share),
      functionEvaluations: evidence.functionWindowCount,
      activeVersion,
      activeVersionId: activeVersion === null ? null : `${evidence.policyModule}@${activeVersion}`,
      supersededSince,
      ...windowBounds(window),
    },
  };
};

export const assessPerformanceDegradation: Assessor = (evidence, window, settings) => {
  const recent = moments(evidence.window);
  const past = moments(evidence.baseline);
  const w = sampleMeanAndVariance(recent);
  const b = sampleMeanAndVariance(past);
  // A baseline that took no measurable time gives no ratio to judge by.
  const ratio = b.mean > 0 ? w.mean / b.mean : null;
  const test = welchOneSided(recent, past);
  const holds =
    recent.count >= settings.minSamples &&
    past.count >= settings.minSamples &&
    ratio !== null &&
    ratio >= settings.slowdownFactor &&
    test.pValue < SLOWDOWN_SIGNIFICANCE;
  return {
    type: 'PERFORMANCE_DEGRADATION',
    holds,
    severity: holds && ratio !== null ? severityOf(ratio, SLOWDOWN_SEVERITY) : null,
    metrics: {
      windowMeanMs: tidy(w.mean),
      baselineMeanMs: tidy(b.mean),
      ratio: ratio === null ? null : tidy(ratio),
      windowStdDevMs: tidy(Math.sqrt(w.variance)),
      baselineStdDevMs: tidy(Math.sqrt(b.variance)),
      windowMaxMs: tidy(evidence.window?.max ?? 0),
      tStatistic: tidy(test.t),
      degreesOfFreedom: tidy(test.df),
      pValue: tidy(test.pValue),
      sampleSize: recent.count,
      baselineSampleSize: past.count,
      ...windowBounds(window),
    },
  };
};

/** Every rule, by the anomaly type it finds. */
export const ASSESSORS: Readonly<Record<AnomalyType, Assessor>> = {
  HIGH_FAILURE_RATE: assessHighFailureRate,
  ZOMBIE_VERSION: assessZombieVersion,
  PERFORMANCE_DEGRADATION: assessPerformanceDegradation,
};
