import type { RollupIncrement, RollupQuery, RollupScanQuery } from '../rollups/rollup-store.js';
import { assertCount, assertPolicyName } from './policy-store-rules.js';
import { StoreArgumentError } from './store-argument-error.js';
import { compareText, normaliseInstant } from './store-rules.js';

/** Checks and orders shared by both adapters for rollups, so they refuse and sort exactly alike. */

function assertMeasure(value: unknown, field: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new StoreArgumentError(`${field} must be a finite number of at least 0`);
  }
}

/** A minute bucket's key: an instant at a whole UTC minute, in stored form. */
export function normaliseMinute(value: string): string {
  const minute = normaliseInstant(value, 'minute');
  if (!minute.endsWith(':00.000Z')) throw new StoreArgumentError('minute must be the start of a minute');
  return minute;
}

export function normaliseIncrement(increment: RollupIncrement): RollupIncrement {
  assertPolicyName(increment.policyModule, 'policyModule');
  assertPolicyName(increment.policyFunction, 'policyFunction');
  assertCount(increment.version, 'version', 0);
  assertCount(increment.count, 'count', 1);
  assertCount(increment.failures, 'failures', 0);
  if (increment.failures > increment.count) throw new StoreArgumentError('failures must not exceed count');
  assertMeasure(increment.timeSum, 'timeSum');
  assertMeasure(increment.max, 'max');
  assertMeasure(increment.timeSquares, 'timeSquares');
  return {
    policyModule: increment.policyModule,
    policyFunction: increment.policyFunction,
    version: increment.version,
    minute: normaliseMinute(increment.minute),
    count: increment.count,
    failures: increment.failures,
    timeSum: increment.timeSum,
    max: increment.max,
    timeSquares: increment.timeSquares,
  };
}

export function rollupKey(i: Pick<RollupIncrement, 'policyModule' | 'policyFunction' | 'version' | 'minute'>): string {
  // Names are identifiers and versions digits, so `:` cannot make two keys collide.
  return `${i.policyModule}:${i.policyFunction}:${i.version}:${i.minute}`;
}

/** Increments for the same bucket merged into one, in first-seen order. */
export function mergeIncrements(increments: readonly RollupIncrement[]): RollupIncrement[] {
  const merged = new Map<string, RollupIncrement>();
  for (const raw of increments) {
    const increment = normaliseIncrement(raw);
    const key = rollupKey(increment);
    const existing = merged.get(key);
    if (existing === undefined) {
      merged.set(key, increment);
    } else {
      existing.count += increment.count;
      existing.failures += increment.failures;
      existing.timeSum += increment.timeSum;
      existing.timeSquares += increment.timeSquares;
      existing.max = Math.max(existing.max, increment.max);
    }
  }
  return [...merged.values()];
}

export interface NormalisedRollupQuery {
  from: string;
  to: string;
  policyModule?: string;
  policyFunction?: string;
  version?: number;
}

export function normaliseRollupQuery(query: RollupQuery): NormalisedRollupQuery {
  const out: NormalisedRollupQuery = { from: normaliseInstant(query.from, 'from'), to: normaliseInstant(query.to, 'to') };
  if (query.policyModule !== undefined) {
    assertPolicyName(query.policyModule, 'policyModule');
    out.policyModule = query.policyModule;
  }
  if (query.policyFunction !== undefined) {
    assertPolicyName(query.policyFunction, 'policyFunction');
    out.policyFunction = query.policyFunction;
  }
  if (query.version !== undefined) {
    assertCount(query.version, 'version', 0);
    out.version = query.version;
  }
  return out;
}

/** A scan query: a rollup query that names the function. */
export function normaliseRollupScan(query: RollupScanQuery): NormalisedRollupQuery & { policyModule: string; policyFunction: string } {
  assertPolicyName(query.policyModule, 'policyModule');
  assertPolicyName(query.policyFunction, 'policyFunction');
  return { ...normaliseRollupQuery(query), policyModule: query.policyModule, policyFunction: query.policyFunction };
}

export function compareBuckets(a: RollupIncrement, b: RollupIncrement): number {
  return (
    compareText(a.policyModule, b.policyModule) ||
    compareText(a.policyFunction, b.policyFunction) ||
    a.version - b.version ||
    compareText(a.minute, b.minute)
  );
}
