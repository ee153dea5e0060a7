import type { Database, Statement } from 'better-sqlite3';
import type { RollupBucket, RollupRepository } from '../ports.js';
import { compareBuckets, mergeIncrements, normaliseRollupQuery, type NormalisedRollupQuery } from '../policy-store-rules.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';

interface BucketRow {
  policy_module: string;
  policy_function: string;
  version: number;
  minute: string;
  count: number;
  failures: number;
  time_sum: number;
  max: number;
}

/** UPSERT adds to the stored bucket inside SQLite's write lock: no increment is lost to another writer. */
export function createSqliteRollupRepository(db: Database): RollupRepository {
  const upsert = db.prepare(
    `INSERT INTO policy_rollups (tenant_id, policy_module, policy_function, version, minute, count, failures, time_sum, max)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (tenant_id, policy_module, policy_function, version, minute) DO UPDATE SET
       count = count + excluded.count,
       failures = failures + excluded.failures,
       time_sum = time_sum + excluded.time_sum,
       max = max(max, excluded.max)`,
  );
  const tenants = db.prepare<[string, string], { tenant_id: string }>(
    'SELECT DISTINCT tenant_id FROM policy_rollups WHERE minute >= ? AND minute <= ?',
  );
  const rangeStatements = new Map<string, Statement<unknown[], BucketRow>>();

  const addAll = db.transaction((tenantId: string, increments: ReturnType<typeof mergeIncrements>) => {
    for (const i of increments) {
      upsert.run(tenantId, i.policyModule, i.policyFunction, i.version, i.minute, i.count, i.failures, i.timeSum, i.max);
    }
  });

  function rangeStatement(query: NormalisedRollupQuery) {
    const where = ['tenant_id = @tenantId', 'minute >= @from', 'minute <= @to'];
    if (query.policyModule !== undefined) where.push('policy_module = @policyModule');
    if (query.policyFunction !== undefined) where.push('policy_function = @policyFunction');
    if (query.version !== undefined) where.push('version = @version');
    const sql = `SELECT policy_module, policy_function, version, minute, count, failures, time_sum, max
                 FROM policy_rollups WHERE ${where.join(' AND ')}`;
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
      return rows
        .map((row): RollupBucket => ({
          policyModule: row.policy_module,
          policyFunction: row.policy_function,
          version: row.version,
          minute: row.minute,
          count: row.count,
          failures: row.failures,
          timeSum: row.time_sum,
          max: row.max,
        }))
        .sort(compareBuckets);
    },

    async tenantsWithBuckets(from, to) {
      const rows = tenants.all(normaliseInstant(from, 'from'), normaliseInstant(to, 'to'));
      return rows.map((row) => row.tenant_id).sort();
    },
  };
}
