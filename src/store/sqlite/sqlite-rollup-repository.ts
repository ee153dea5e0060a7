import type { Database, Statement } from 'better-sqlite3';
import type { RollupBucket, RollupRepository, RollupTotals } from '../../rollups/rollup-store.js';
import {
  compareBuckets,
  mergeIncrements,
  normaliseRollupQuery,
  normaliseRollupScan,
  type NormalisedRollupQuery,
} from '../rollup-store-rules.js';
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

function toTotals(row: TotalsRow): RollupTotals {
  return {
    policyModule: row.policy_module,
    policyFunction: row.policy_function,
    version: row.version,
    count: row.count,
    failures: row.failures,
    timeSum: row.time_sum,
    timeSquares: row.time_squares,
    max: row.max,
    buckets: row.buckets,
  };
}

/** Buckets per page when a window is summed: one page is a few milliseconds of synchronous work. */
const TOTALS_PAGE_BUCKETS = 1000;
/** Tenants looked at between turns of the event loop when naming those with buckets in a window. */
const TENANTS_PER_TURN = 500;

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
  // The tenants are walked along the (tenant, minute) index, two seeks per tenant, rather than
  // read from every bucket of the window (a day of one tenant's buckets may be millions).
  const nextTenant = db.prepare<[string], { tenant_id: string | null }>('SELECT min(tenant_id) AS tenant_id FROM policy_rollups WHERE tenant_id > ?');
  const hasBucket = db.prepare<[string, string, string], { found: number }>(
    'SELECT 1 AS found FROM policy_rollups INDEXED BY policy_rollups_by_minute WHERE tenant_id = ? AND minute >= ? AND minute <= ? LIMIT 1',
  );
  // One version's window is one range of the primary key, summed in SQLite.
  const versionTotals = db.prepare<[string, string, string, number, string, string], TotalsRow>(
    `SELECT policy_module, policy_function, version, sum(count) AS count, sum(failures) AS failures,
            sum(time_sum) AS time_sum, sum(time_squares) AS time_squares, max(max) AS max, count(*) AS buckets
     FROM policy_rollups WHERE tenant_id = ? AND policy_module = ? AND policy_function = ? AND version = ? AND minute >= ? AND minute <= ?
     GROUP BY policy_module, policy_function, version`,
  );
  const rangeStatements = new Map<string, Statement<unknown[], BucketRow>>();
  const windowPageStatements = new Map<string, Statement<unknown[], BucketRow>>();
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

  // A page of the window's buckets in the order of the (tenant, minute) index, whose entries also
  // hold the primary key's columns: each page continues after the previous one's last bucket, one
  // short range of the index, however many buckets the window has or however long their history.
  function windowPageStatement(query: NormalisedRollupQuery) {
    const where = [
      'tenant_id = @tenantId',
      '(minute, policy_module, policy_function, version) > (@minute, @policyModuleAfter, @policyFunctionAfter, @versionAfter)',
      'minute <= @to',
    ];
    if (query.policyModule !== undefined) where.push('policy_module = @policyModule');
    if (query.policyFunction !== undefined) where.push('policy_function = @policyFunction');
    if (query.version !== undefined) where.push('version = @version');
    const sql = `SELECT ${BUCKET_COLUMNS} FROM policy_rollups INDEXED BY policy_rollups_by_minute WHERE ${where.join(' AND ')}
     ORDER BY minute, policy_module, policy_function, version LIMIT @limit`;
    let statement = windowPageStatements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], BucketRow>(sql);
      windowPageStatements.set(sql, statement);
    }
    return statement;
  }

  async function windowTotals(tenantId: string, query: NormalisedRollupQuery): Promise<RollupTotals[]> {
    const statement = windowPageStatement(query);
    const totals = new Map<string, RollupTotals>();
    // Before the window's first bucket: names are never empty, versions never negative.
    let after = { minute: query.from, policyModuleAfter: '', policyFunctionAfter: '', versionAfter: -1 };
    for (;;) {
      const rows = statement.all({ ...query, ...after, tenantId, limit: TOTALS_PAGE_BUCKETS });
      for (const row of rows) {
        const key = `${row.policy_module}\u0000${row.policy_function}\u0000${row.version}`;
        const total = totals.get(key);
        if (total === undefined) {
          totals.set(key, toTotals({ ...row, buckets: 1 }));
          continue;
        }
        total.count += row.count;
        total.failures += row.failures;
        total.timeSum += row.time_sum;
        total.timeSquares += row.time_squares;
        total.max = Math.max(total.max, row.max);
        total.buckets += 1;
      }
      if (rows.length < TOTALS_PAGE_BUCKETS) return [...totals.values()];
      const last = rows[rows.length - 1]!;
      after = { minute: last.minute, policyModuleAfter: last.policy_module, policyFunctionAfter: last.policy_function, versionAfter: last.version };
      // Each page is synchronous; between them the event loop serves others.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
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
      const q = normaliseRollupQuery(query);
      if (q.policyModule !== undefined && q.policyFunction !== undefined && q.version !== undefined) {
        return versionTotals.all(tenantId, q.policyModule, q.policyFunction, q.version, q.from, q.to).map(toTotals);
      }
      return windowTotals(tenantId, q);
    },

    async tenantsWithBuckets(from, to) {
      const window = [normaliseInstant(from, 'from'), normaliseInstant(to, 'to')] as const;
      const found: string[] = [];
      let seen = 0;
      for (let tenant = nextTenant.get('')?.tenant_id ?? null; tenant !== null; tenant = nextTenant.get(tenant)?.tenant_id ?? null) {
        if (hasBucket.get(tenant, ...window) !== undefined) found.push(tenant);
        seen += 1;
        if (seen % TENANTS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      return found;
    },
  };
}
