import type { Database, Statement } from 'better-sqlite3';
import type { RollupBucket, RollupRepository, RollupTotals } from '../ports.js';
import {
  compareBuckets,
  compareTotals,
  mergeIncrements,
  normaliseRollupQuery,
  normaliseRollupScan,
  normaliseTotalsWindow,
  type NormalisedRollupQuery,
} from '../policy-store-rules.js';
import { assertPageSize, assertTenantId, normaliseInstant } from '../store-rules.js';

interface BucketRow {
  policy_module: string;
  policy_function: string;
  version: number;
  minute: string;
  count: number;
  failures: number;
  time_sum: number;
  time_squares: number;
  max: number;
}

interface TotalsRow extends Omit<BucketRow, 'minute'> {
  buckets: number;
}

const BUCKET_COLUMNS = 'policy_module, policy_function, version, minute, count, failures, time_sum, time_squares, max';
const MINUTE_MS = 60_000;

function toBucket(row: BucketRow): RollupBucket {
  return {
    policyModule: row.policy_module,
    policyFunction: row.policy_function,
    version: row.version,
    minute: row.minute,
    count: row.count,
    failures: row.failures,
    timeSum: row.time_sum,
    max: row.max,
    timeSquares: row.time_squares,
  };
}

/** UPSERT adds to the stored bucket inside SQLite's write lock: no increment is lost to another writer. */
export function createSqliteRollupRepository(db: Database): RollupRepository {
  const upsert = db.prepare(
    `INSERT INTO policy_rollups (tenant_id, policy_module, policy_function, version, minute, count, failures, time_sum, time_squares, max)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (tenant_id, policy_module, policy_function, version, minute) DO UPDATE SET
       count = count + excluded.count,
       failures = failures + excluded.failures,
       time_sum = time_sum + excluded.time_sum,
       time_squares = time_squares + excluded.time_squares,
       max = max(max, excluded.max)`,
  );
  const tenants = db.prepare<[string, string], { tenant_id: string }>(
    'SELECT DISTINCT tenant_id FROM policy_rollups WHERE minute >= ? AND minute <= ?',
  );
  // One pass over the tenant's (tenant, minute) index range; grouped in SQLite, not in JavaScript.
  const totals = db.prepare<[string, string, string], TotalsRow>(
    `SELECT policy_module, policy_function, version, sum(count) AS count, sum(failures) AS failures,
            sum(time_sum) AS time_sum, sum(time_squares) AS time_squares, max(max) AS max, count(*) AS buckets
     FROM policy_rollups WHERE tenant_id = ? AND minute >= ? AND minute <= ?
     GROUP BY policy_module, policy_function, version`,
  );
  const rangeStatements = new Map<string, Statement<unknown[], BucketRow>>();
  // Both are served by the primary key (tenant, module, function, version, minute): the next version
  // is one seek, and a page of a version's window one range, however long its history around it.
  const nextVersion = db.prepare<[string, string, string, number], { version: number | null }>(
    'SELECT min(version) AS version FROM policy_rollups WHERE tenant_id = ? AND policy_module = ? AND policy_function = ? AND version > ?',
  );
  const versionPage = db.prepare<[string, string, string, number, string, string, number], BucketRow>(
    `SELECT ${BUCKET_COLUMNS} FROM policy_rollups
     WHERE tenant_id = ? AND policy_module = ? AND policy_function = ? AND version = ? AND minute >= ? AND minute <= ?
     ORDER BY minute LIMIT ?`,
  );

  const addAll = db.transaction((tenantId: string, increments: ReturnType<typeof mergeIncrements>) => {
    for (const i of increments) {
      upsert.run(tenantId, i.policyModule, i.policyFunction, i.version, i.minute, i.count, i.failures, i.timeSum, i.timeSquares, i.max);
    }
  });

  function rangeStatement(query: NormalisedRollupQuery) {
    const where = ['tenant_id = @tenantId', 'minute >= @from', 'minute <= @to'];
    if (query.policyModule !== undefined) where.push('policy_module = @policyModule');
    if (query.policyFunction !== undefined) where.push('policy_function = @policyFunction');
    if (query.version !== undefined) where.push('version = @version');
    const sql = `SELECT ${BUCKET_COLUMNS} FROM policy_rollups WHERE ${where.join(' AND ')}`;
    let statement = rangeStatements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], BucketRow>(sql);
      rangeStatements.set(sql, statement);
    }
    return statement;
  }

  return {
    async add(tenantId, increments) {
      assertTenantId(tenantId);
      const merged = mergeIncrements(increments);
      if (merged.length > 0) addAll.immediate(tenantId, merged);
    },

    async range(tenantId, query) {
      assertTenantId(tenantId);
      const normalised = normaliseRollupQuery(query);
      const rows = rangeStatement(normalised).all({ ...normalised, tenantId });
      return rows.map(toBucket).sort(compareBuckets);
    },

    async *scan(tenantId, query, pageSize) {
      assertTenantId(tenantId);
      assertPageSize(pageSize);
      const q = normaliseRollupScan(query);
      const versionAfter = (version: number) => nextVersion.get(tenantId, q.policyModule, q.policyFunction, version)?.version ?? null;
      // Pages are read whole (`all`), never through an open iterator: the connection stays free for
      // other requests between them.
      for (let version = q.version ?? versionAfter(-1); version !== null; version = q.version === undefined ? versionAfter(version) : null) {
        let from = q.from;
        for (;;) {
          const rows = versionPage.all(tenantId, q.policyModule, q.policyFunction, version, from, q.to, pageSize);
          for (const row of rows) yield toBucket(row);
          if (rows.length < pageSize) break;
          // Stored minutes are whole minutes: the next page starts at the minute after the last one.
          from = new Date(Date.parse(rows[rows.length - 1]!.minute) + MINUTE_MS).toISOString();
        }
      }
    },

    async totals(tenantId, query) {
      assertTenantId(tenantId);
      const window = normaliseTotalsWindow(query);
      return totals
        .all(tenantId, window.from, window.to)
        .map(
          (row): RollupTotals => ({
            policyModule: row.policy_module,
            policyFunction: row.policy_function,
            version: row.version,
            count: row.count,
            failures: row.failures,
            timeSum: row.time_sum,
            timeSquares: row.time_squares,
            max: row.max,
            buckets: row.buckets,
          }),
        )
        .sort(compareTotals);
    },

    async tenantsWithBuckets(from, to) {
      const rows = tenants.all(normaliseInstant(from, 'from'), normaliseInstant(to, 'to'));
      return rows.map((row) => row.tenant_id).sort();
    },
  };
}
