/**
 * The earlier traffic a slowdown is measured against. PERFORMANCE_DEGRADATION compares a version's
 * window with its own baseline (the days before the window), and no route takes evaluations in the
 * past, so the demo measures the same source on short claim histories (evaluate-source, which adds
 * to no rollup) and writes those timings as the version's rollups of the last day, one bucket an
 * hour, through the store module the scripts use (the configured store: SQLite under DATA_DIR or
 * MongoDB). Only when the version has no baseline yet: a second run finds it and writes nothing.
 */
import type { RollupIncrement } from '../../src/rollups/index.js';
import { CliError, type CliIo } from '../cli-io.js';
import { withStore } from '../store-access.js';
import type { ServiceApi } from './service-api.js';
import { EVALUATE_BATCH_ROUTE } from './traffic.js';

export interface BaselineTarget {
  tenantId: string;
  policyModule: string;
  policyFunction: string;
  version: number;
  /** The version's source, evaluated on `contexts` to measure how long it took on them. */
  source: string;
  contexts: unknown[];
}

interface RollupSeries {
  series: Array<{ total: { count: number } }>;
}

const HOUR_MS = 3_600_000;
/** Hours of history written, one bucket each, ending an hour before the current one. */
const BASELINE_HOURS = 24;
/** Evaluations per hourly bucket. */
const EVALUATIONS_PER_HOUR = 30;
/**
 * Each engine thread compiles the source on its first item, which that item's time includes: the
 * contexts are sent this many times and only the last round is measured, without its slowest half.
 */
const MEASURING_ROUNDS = 3;

/** How many evaluations the version's rollups hold between `from` and `to`, as the service reads them. */
async function evaluationsBetween(api: ServiceApi, target: BaselineTarget, from: Date, to: Date): Promise<number> {
  const query = new URLSearchParams({
    policyModule: target.policyModule,
    policyFunction: target.policyFunction,
    version: String(target.version),
    startTime: from.toISOString(),
    endTime: to.toISOString(),
    step: 'hour',
  });
  const answer = await api.call<RollupSeries>('GET', `/api/v1/audit/rollups?${query}`);
  return answer.series.reduce((sum, series) => sum + series.total.count, 0);
}

/** Execution times of the source on the contexts, in ms: the last round's faster half. */
async function measure(api: ServiceApi, target: BaselineTarget): Promise<number[]> {
  let times: number[] = [];
  for (let round = 0; round < MEASURING_ROUNDS; round += 1) {
    const answer = await api.call<{ results: Array<{ error: string | null; executionTimeMs: number }> }>('POST', EVALUATE_BATCH_ROUTE, {
      items: target.contexts.map((context) => ({ source: target.source, functionName: target.policyFunction, context })),
    });
    const failure = answer.results.find((result) => result.error !== null);
    if (failure !== undefined) throw new CliError(`measuring ${target.policyModule} ${target.policyFunction} on short histories failed: ${failure.error}`);
    times = answer.results.map((result) => result.executionTimeMs).sort((a, b) => a - b);
  }
  return times.slice(0, Math.max(1, Math.ceil(times.length / 2)));
}

/** One bucket an hour over the last day, each with the measured mean, spread and longest time. */
function hourlyBuckets(target: BaselineTarget, times: readonly number[], now: Date): RollupIncrement[] {
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  const meanSquare = times.reduce((sum, t) => sum + t * t, 0) / times.length;
  const currentHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  return Array.from({ length: BASELINE_HOURS }, (_, i) => ({
    policyModule: target.policyModule,
    policyFunction: target.policyFunction,
    version: target.version,
    minute: new Date(currentHour - (i + 1) * HOUR_MS).toISOString(),
    count: EVALUATIONS_PER_HOUR,
    failures: 0,
    timeSum: mean * EVALUATIONS_PER_HOUR,
    timeSquares: meanSquare * EVALUATIONS_PER_HOUR,
    max: times.at(-1)!,
  }));
}

/** Writes the version's baseline unless it has one; the service must read the store this configuration names. */
export async function ensurePerformanceBaseline(api: ServiceApi, target: BaselineTarget, io: CliIo, now = new Date()): Promise<void> {
  const from = new Date(now.getTime() - 7 * 24 * HOUR_MS);
  const to = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - 1);
  const name = `${target.policyModule}@${target.version} ${target.policyFunction}`;
  if ((await evaluationsBetween(api, target, from, to)) > 0) {
    io.out(`  ${name} has earlier traffic already: its baseline is left as it is`);
    return;
  }
  const times = await measure(api, target);
  const buckets = hourlyBuckets(target, times, now);
  await withStore(io, (store) => store.rollups.add(target.tenantId, buckets));
  const written = buckets.length * EVALUATIONS_PER_HOUR;
  if ((await evaluationsBetween(api, target, from, to)) < written) {
    throw new CliError(
      `the service at ${api.baseUrl} does not see the baseline written to this configuration's store: run the demo with the service's DATA_DIR (or MONGODB_URL)`,
    );
  }
  const meanMs = buckets[0]!.timeSum / EVALUATIONS_PER_HOUR;
  io.out(`  ${name}: ${written} evaluations of short claim histories over the last day (mean ${meanMs.toFixed(3)} ms, measured now) as its baseline`);
}
