import { describe, expect, it } from 'vitest';
import type { RollupTotals } from '../../rollups/index.js';
import type { DetectionWindow, VersionEvidence } from '../assessment.js';
import { describeAnomaly } from '../anomaly-texts.js';
import { assessHighFailureRate, assessPerformanceDegradation, assessZombieVersion, severityOf, SLOWDOWN_SEVERITY } from '../detection-rules.js';
import { DEFAULT_DETECTION_SETTINGS } from '../detection-settings.js';

const WINDOW: DetectionWindow = { baselineStart: '2026-02-23T11:00:00.000Z', start: '2026-03-02T11:00:00.000Z', end: '2026-03-02T12:00:00.000Z' };
const SETTINGS = DEFAULT_DETECTION_SETTINGS;

function totals(spec: Partial<RollupTotals>): RollupTotals {
  return { policyModule: 'lending.loan', policyFunction: 'eligible', version: 3, count: 0, failures: 0, timeSum: 0, timeSquares: 0, max: 0, buckets: 1, ...spec };
}

/** Timing sums of n evaluations of this mean and standard deviation. */
function timed(count: number, mean: number, sd: number): Partial<RollupTotals> {
  return { count, timeSum: count * mean, timeSquares: (count - 1) * sd * sd + count * mean * mean, max: mean + 3 * sd };
}

function evidence(spec: Partial<VersionEvidence> = {}): VersionEvidence {
  return {
    policyModule: 'lending.loan',
    policyFunction: 'eligible',
    version: 3,
    window: null,
    baseline: null,
    functionWindowCount: 0,
    standing: { activeVersion: 3, supersededSince: null },
    ...spec,
  };
}

const failing = (count: number, failures: number) => evidence({ window: totals({ count, failures }), functionWindowCount: count });

describe('HIGH_FAILURE_RATE', () => {
  it('does not fire on a small sample or when the Wilson bound is under the threshold', () => {
    expect(assessHighFailureRate(failing(10, 3), WINDOW, SETTINGS).holds).toBe(false);
    expect(assessHighFailureRate(failing(49, 30), WINDOW, SETTINGS).holds).toBe(false);
    // 5 of 50 is 10 %, above 5 %, but the bound (0.043) is not.
    expect(assessHighFailureRate(failing(50, 5), WINDOW, SETTINGS).holds).toBe(false);
  });

  it('fires at the sample floor once the bound clears the threshold, with the interface’s metrics', () => {
    const assessment = assessHighFailureRate(failing(50, 15), WINDOW, SETTINGS);
    expect(assessment).toMatchObject({ type: 'HIGH_FAILURE_RATE', holds: true, severity: 'HIGH' });
    expect(assessment.metrics).toMatchObject({
      failureRate: 0.3,
      baselineFailureRate: 0,
      baselineSampleSize: 0,
      sampleSize: 50,
      failures: 15,
      threshold: 0.05,
      windowStart: WINDOW.start,
      windowEnd: WINDOW.end,
    });
    expect(assessment.metrics.wilsonLowerBound).toBeCloseTo(0.191, 3);
  });

  it('reports the baseline rate and grades severity by the multiple of the threshold', () => {
    const withBaseline = evidence({ window: totals({ count: 200, failures: 90 }), baseline: totals({ count: 1000, failures: 10 }) });
    expect(assessHighFailureRate(withBaseline, WINDOW, SETTINGS)).toMatchObject({ severity: 'CRITICAL', metrics: { baselineFailureRate: 0.01, baselineSampleSize: 1000 } });
    expect(assessHighFailureRate(failing(1000, 110), WINDOW, SETTINGS).severity).toBe('MEDIUM');
    expect(assessHighFailureRate(failing(1000, 80), WINDOW, SETTINGS).severity).toBe('LOW');
    expect(assessHighFailureRate(failing(1000, 300), WINDOW, { ...SETTINGS, failureRateThreshold: 0.25 }).severity).toBe('LOW');
  });

  it('keeps its metrics when it does not hold, also without traffic', () => {
    const quiet = assessHighFailureRate(evidence(), WINDOW, SETTINGS);
    expect(quiet).toMatchObject({ holds: false, severity: null, metrics: { sampleSize: 0, failureRate: 0 } });
  });
});

describe('ZOMBIE_VERSION', () => {
  const pinned = (count: number, supersededSince: string | null, functionWindowCount = count * 4) =>
    evidence({ version: 2, window: totals({ version: 2, count }), functionWindowCount, standing: { activeVersion: 3, supersededSince } });

  it('fires for a version superseded longer than the grace period that still gets enough traffic', () => {
    const assessment = assessZombieVersion(pinned(60, '2026-03-02T10:59:00.000Z', 80), WINDOW, SETTINGS);
    expect(assessment).toMatchObject({ holds: true, severity: 'CRITICAL' });
    expect(assessment.metrics).toMatchObject({
      sampleSize: 60,
      evaluations: 60,
      shareOfTraffic: 0.75,
      functionEvaluations: 80,
      activeVersion: 3,
      activeVersionId: 'lending.loan@3',
      supersededSince: '2026-03-02T10:59:00.000Z',
    });
  });

  it('waits out the grace period and the sample floor, and ignores the active version', () => {
    expect(assessZombieVersion(pinned(60, '2026-03-02T11:00:01.000Z'), WINDOW, SETTINGS).holds).toBe(false);
    expect(assessZombieVersion(pinned(60, '2026-03-02T11:00:00.000Z'), WINDOW, SETTINGS).holds).toBe(true);
    expect(assessZombieVersion(pinned(49, '2026-03-01T00:00:00.000Z'), WINDOW, SETTINGS).holds).toBe(false);
    expect(assessZombieVersion(pinned(60, null), WINDOW, SETTINGS).holds).toBe(false);
  });

  it('grades severity by the share of the function’s traffic', () => {
    const since = '2026-03-01T00:00:00.000Z';
    expect(assessZombieVersion(pinned(60, since, 200), WINDOW, SETTINGS).severity).toBe('HIGH');
    expect(assessZombieVersion(pinned(60, since, 1000), WINDOW, SETTINGS).severity).toBe('MEDIUM');
    expect(assessZombieVersion(pinned(60, since, 10_000), WINDOW, SETTINGS).severity).toBe('LOW');
  });
});

describe('PERFORMANCE_DEGRADATION', () => {
  const slowed = (window: Partial<RollupTotals>, baseline: Partial<RollupTotals>) => evidence({ window: totals(window), baseline: totals(baseline) });

  it('fires on a significant rise of at least the factor', () => {
    const assessment = assessPerformanceDegradation(slowed(timed(60, 3, 0.5), timed(60, 1, 0.2)), WINDOW, SETTINGS);
    expect(assessment).toMatchObject({ holds: true, severity: 'HIGH' });
    expect(assessment.metrics).toMatchObject({ windowMeanMs: 3, baselineMeanMs: 1, ratio: 3, sampleSize: 60, baselineSampleSize: 60 });
    expect(assessment.metrics.pValue as number).toBeLessThan(0.01);
    expect(assessment.metrics.windowStdDevMs).toBeCloseTo(0.5, 6);
  });

  it('needs the factor, significance and enough samples on both sides', () => {
    // 1.4× is below the factor however certain.
    expect(assessPerformanceDegradation(slowed(timed(500, 1.4, 0.01), timed(500, 1, 0.01)), WINDOW, SETTINGS).holds).toBe(false);
    // 2× but so noisy that it is not significant at 1 %.
    const noisy = assessPerformanceDegradation(slowed(timed(50, 2, 6), timed(50, 1, 6)), WINDOW, SETTINGS);
    expect(noisy.holds).toBe(false);
    expect(noisy.metrics.pValue as number).toBeGreaterThan(0.01);
    expect(assessPerformanceDegradation(slowed(timed(60, 3, 0.5), timed(49, 1, 0.2)), WINDOW, SETTINGS).holds).toBe(false);
    expect(assessPerformanceDegradation(evidence({ window: totals(timed(60, 3, 0.5)) }), WINDOW, SETTINGS).holds).toBe(false);
  });

  it('treats a zero-time baseline as giving no ratio, and keeps every metric finite', () => {
    const assessment = assessPerformanceDegradation(slowed(timed(60, 3, 0.5), { count: 60 }), WINDOW, SETTINGS);
    expect(assessment.holds).toBe(false);
    expect(assessment.metrics.ratio).toBeNull();
    for (const value of Object.values(assessment.metrics)) if (typeof value === 'number') expect(Number.isFinite(value)).toBe(true);
  });

  it('grades severity by the ratio', () => {
    expect(severityOf(5, SLOWDOWN_SEVERITY)).toBe('CRITICAL');
    expect(severityOf(2.99, SLOWDOWN_SEVERITY)).toBe('MEDIUM');
    expect(severityOf(1.6, SLOWDOWN_SEVERITY)).toBe('LOW');
  });
});

describe('describeAnomaly', () => {
  it('states the numbers and the version, and recommends a rollback with the exact request', () => {
    const e = failing(120, 37);
    const text = describeAnomaly(e, assessHighFailureRate(e, WINDOW, SETTINGS));
    expect(text.summary).toContain('lending.loan@3');
    expect(text.summary).toContain('30.8%');
    expect(text.summary).toContain('120 evaluations');
    expect(text.recommendedActions).toContain('Roll back lending.loan to version 2 while the failures are investigated: POST /api/v1/policies/lending.loan/rollback {"version": 2}');
  });

  it('tells how to find and move the clients pinned to a superseded version', () => {
    const e = evidence({ version: 2, window: totals({ version: 2, count: 60 }), functionWindowCount: 80, standing: { activeVersion: 3, supersededSince: '2026-03-01T00:00:00.000Z' } });
    const text = describeAnomaly(e, assessZombieVersion(e, WINDOW, SETTINGS));
    expect(text.summary).toContain('lending.loan@2 was superseded at 2026-03-01T00:00:00.000Z');
    expect(text.recommendedActions[0]).toBe(
      'Find the clients still pinned to version 2: GET /api/v1/audit/policy/lending.loan/eligible lists their POLICY_EVALUATED records (actorId) with versionId lending.loan@2',
    );
    expect(text.recommendedActions.join('\n')).toContain('version 3');
  });

  it('suggests a fix and a new deploy when there is nothing earlier to roll back to', () => {
    const e = evidence({ version: 1, window: totals(timed(60, 3, 0.5)), baseline: totals(timed(60, 1, 0.2)), standing: { activeVersion: 1, supersededSince: null } });
    const text = describeAnomaly(e, assessPerformanceDegradation(e, WINDOW, SETTINGS));
    expect(text.summary).toContain('3× its baseline of 1 ms');
    expect(text.recommendedActions.join('\n')).toContain('deploy lending.loan again');
  });
});
