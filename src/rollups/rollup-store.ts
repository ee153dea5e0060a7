/** What one or more evaluations add to a per-minute bucket. */
export interface RollupIncrement {
  policyModule: string;
  policyFunction: string;
  /** Module version evaluated; 0 for the built-in module. */
  version: number;
  /** Start of the UTC minute (`2026-01-02T03:04:00.000Z`). */
  minute: string;
  count: number;
  failures: number;
  /** Sum of execution times, milliseconds. */
  timeSum: number;
  /** Longest execution time, milliseconds. */
  max: number;
  /** Sum of squared execution times, ms² (with count and timeSum it gives the variance). */
  timeSquares: number;
}

/** A bucket as read back: the sum of every increment it received. */
export type RollupBucket = RollupIncrement;

export interface RollupQuery {
  /** Inclusive ISO 8601 bounds on the bucket's minute. */
  from: string;
  to: string;
  policyModule?: string;
  policyFunction?: string;
  version?: number;
}

/** One version of one policy function: what a rollup total is about. */
export type RollupVersionKey = Pick<RollupIncrement, 'policyModule' | 'policyFunction' | 'version'>;

/** A scan of one policy function's buckets. */
export interface RollupScanQuery extends RollupQuery {
  policyModule: string;
  policyFunction: string;
}

export interface RollupRepository {
  /**
   * Adds each increment to its bucket, creating it when absent: count, failures and timeSum add up,
   * max keeps the larger. No increment is lost to concurrent writers in this or another process.
   */
  add(tenantId: string, increments: readonly RollupIncrement[]): Promise<void>;
  /** Buckets in the window, ordered by module, function, version, minute. */
  range(tenantId: string, query: RollupQuery): Promise<RollupBucket[]>;
  /**
   * The function's buckets in the window (of one version when `version` is given), ordered by
   * version then minute, read in pages of `pageSize`: memory stays bounded however many there are.
   */
  scan(tenantId: string, query: RollupScanQuery, pageSize: number): AsyncIterable<RollupBucket>;
  /**
   * Per (module, function, version), the sums of the buckets in the window (max: the largest), of
   * one module, function or version when named, in no particular order. Reads each bucket in the
   * window once, never a version's history outside it, and holds one total per version; a large
   * window is read in pages with turns of the event loop between them (SQLite answers synchronously).
   */
  totals(tenantId: string, query: RollupQuery): Promise<RollupTotals[]>;
  /** Tenants with at least one bucket whose minute lies in the inclusive window, sorted. */
  tenantsWithBuckets(from: string, to: string): Promise<string[]>;
}

/** A window's buckets of one version summed. */
export interface RollupTotals {
  policyModule: string;
  policyFunction: string;
  version: number;
  count: number;
  failures: number;
  timeSum: number;
  timeSquares: number;
  max: number;
  /** How many minute buckets were summed. */
  buckets: number;
}
