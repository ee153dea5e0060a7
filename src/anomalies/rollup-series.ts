import type { RollupRepository } from '../rollups/index.js';
import { anomalyVersionId } from './anomaly-view.js';

/**
 * A policy function's per-minute rollups summed into points of a coarser step, one series per
 * version: what a console charts against an anomaly's baseline. Every series has a point for every
 * step of the window, so versions line up; a step without evaluations has count 0 and null rates.
 */

export const ROLLUP_STEPS = ['minute', 'hour', 'day'] as const;
export type RollupStep = (typeof ROLLUP_STEPS)[number];

const STEP_MS: Readonly<Record<RollupStep, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const MINUTE_MS = 60_000;

/** Points per series: a day of minutes, two months of hours, four years of days. */
export const ROLLUP_SERIES_MAX_POINTS = 1440;
/** Versions in one answer (more lines than a chart can show); naming a version always fits. */
export const ROLLUP_SERIES_MAX_VERSIONS = 20;
/** Buckets per read from the store. */
const SCAN_PAGE_SIZE = 1000;

/** The whole steps that cover a requested window. */
export interface SeriesWindow {
  step: RollupStep;
  /** Start of the step holding the window's start: the first point's `at`. */
  from: string;
  /** End of the step holding the window's end (exclusive): the last point's `at` plus one step. */
  to: string;
  points: number;
}

/** Widens the inclusive window [start, end] (instants, start ≤ end) to whole UTC steps. */
export function seriesWindow(start: string, end: string, step: RollupStep): SeriesWindow {
  const stepMs = STEP_MS[step];
  const first = Math.floor(Date.parse(start) / stepMs) * stepMs;
  const last = Math.floor(Date.parse(end) / stepMs) * stepMs;
  return { step, from: new Date(first).toISOString(), to: new Date(last + stepMs).toISOString(), points: (last - first) / stepMs + 1 };
}

/** Sums of evaluations; the rates are null when there were none (there is no rate of nothing). */
export interface RollupFigures {
  count: number;
  failures: number;
  failureRate: number | null;
  meanMs: number | null;
  maxMs: number | null;
}

export interface RollupPoint extends RollupFigures {
  /** Start of the step (UTC); the point sums the minutes from here to the next step. */
  at: string;
}

export interface RollupSeries {
  version: number;
  /** `<module>@<version>`, as anomalies name it. */
  versionId: string;
  /** The whole window summed. */
  total: RollupFigures;
  points: RollupPoint[];
}

export interface RollupSeriesView {
  policyModule: string;
  policyFunction: string;
  step: RollupStep;
  from: string;
  to: string;
  /** Ascending by version. */
  series: RollupSeries[];
}

export interface RollupSeriesRequest {
  policyModule: string;
  policyFunction: string;
  /** Only this version; its series is answered even when it has no evaluations in the window. */
  version?: number;
  window: SeriesWindow;
}

/** More versions were evaluated in the window than one answer carries. */
export class TooManyVersionsError extends Error {
  override readonly name = 'TooManyVersionsError';
  constructor(readonly limit: number) {
    super(`more than ${limit} versions were evaluated in the window`);
  }
}

/** One version's points as running sums; the figures are derived once the scan ends. */
class SeriesSums {
  readonly count: Float64Array;
  readonly failures: Float64Array;
  readonly timeSum: Float64Array;
  readonly max: Float64Array;
  constructor(points: number) {
    this.count = new Float64Array(points);
    this.failures = new Float64Array(points);
    this.timeSum = new Float64Array(points);
    this.max = new Float64Array(points);
  }
}

function figures(count: number, failures: number, timeSum: number, max: number): RollupFigures {
  if (count === 0) return { count, failures, failureRate: null, meanMs: null, maxMs: null };
  return { count, failures, failureRate: failures / count, meanMs: timeSum / count, maxMs: max };
}

function seriesOf(policyModule: string, version: number, sums: SeriesSums, window: SeriesWindow): RollupSeries {
  const stepMs = STEP_MS[window.step];
  const start = Date.parse(window.from);
  const points: RollupPoint[] = [];
  let count = 0;
  let failures = 0;
  let timeSum = 0;
  let max = 0;
  for (let i = 0; i < window.points; i += 1) {
    points.push({ at: new Date(start + i * stepMs).toISOString(), ...figures(sums.count[i]!, sums.failures[i]!, sums.timeSum[i]!, sums.max[i]!) });
    count += sums.count[i]!;
    failures += sums.failures[i]!;
    timeSum += sums.timeSum[i]!;
    max = Math.max(max, sums.max[i]!);
  }
  return { version, versionId: anomalyVersionId({ policyModule, version }), total: figures(count, failures, timeSum, max), points };
}

/**
 * Reads the function's buckets in the window page by page and sums each into its version's point:
 * memory holds the points of the answer, never the buckets. Throws TooManyVersionsError (having
 * stopped reading) when a version beyond ROLLUP_SERIES_MAX_VERSIONS appears.
 */
export async function readRollupSeries(
  rollups: Pick<RollupRepository, 'scan'>,
  tenantId: string,
  request: RollupSeriesRequest,
): Promise<RollupSeriesView> {
  const { policyModule, policyFunction, version, window } = request;
  const stepMs = STEP_MS[window.step];
  const start = Date.parse(window.from);
  const byVersion = new Map<number, SeriesSums>();
  if (version !== undefined) byVersion.set(version, new SeriesSums(window.points));

  const query = {
    policyModule,
    policyFunction,
    from: window.from,
    // The last minute of the last step: bucket bounds are inclusive.
    to: new Date(Date.parse(window.to) - MINUTE_MS).toISOString(),
    ...(version !== undefined ? { version } : {}),
  };
  for await (const bucket of rollups.scan(tenantId, query, SCAN_PAGE_SIZE)) {
    let sums = byVersion.get(bucket.version);
    if (sums === undefined) {
      if (byVersion.size === ROLLUP_SERIES_MAX_VERSIONS) throw new TooManyVersionsError(ROLLUP_SERIES_MAX_VERSIONS);
      sums = new SeriesSums(window.points);
      byVersion.set(bucket.version, sums);
    }
    const index = Math.floor((Date.parse(bucket.minute) - start) / stepMs);
    if (index < 0 || index >= window.points) throw new Error(`the store answered bucket ${bucket.minute} outside ${window.from}–${window.to}`);
    sums.count[index]! += bucket.count;
    sums.failures[index]! += bucket.failures;
    sums.timeSum[index]! += bucket.timeSum;
    sums.max[index] = Math.max(sums.max[index]!, bucket.max);
  }

  const series = [...byVersion.entries()]
    .sort(([a], [b]) => a - b)
    .map(([v, sums]) => seriesOf(policyModule, v, sums, window));
  return { policyModule, policyFunction, step: window.step, from: window.from, to: window.to, series };
}
