// Anomaly detection benchmark: one detector run over a tenant's rollups for 1k, 10k and 100k
// buckets, on SQLite and, when MONGODB_URL is set, on MongoDB / FerretDB. Each size runs for two
// tenants with the same buckets but 1 and 10,000 evaluations behind each bucket: detection reads
// rollups only, so its time must follow the buckets and not the evaluations. Imports the build:
// run through `npm run bench:anomalies` (QUICK=1 for a small run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createAnomalyDetector, createAnomalySettings, DEFAULT_DETECTION_SETTINGS } from '../../dist/src/anomalies/index.js';
import { createAuditTrail } from '../../dist/src/audit/index.js';
import { openMongoStore, openSqliteStore } from '../../dist/src/store/index.js';
import { fmt, printTable } from '../support/table.mjs';

const quick = process.env.QUICK === '1';
const mongoUrl = process.env.MONGODB_URL?.trim() || undefined;
const SIZES = { sqlite: quick ? [1_000, 10_000] : [1_000, 10_000, 100_000], mongo: quick ? [1_000] : [1_000, 10_000, 100_000] };
const ONLY = process.env.BENCH_STORE; // `sqlite` or `mongo` to run one store
const FUNCTIONS = 10;
const RUNS = quick ? 1 : 3;
const TARGET = { buckets: 100_000, ms: 2000 };
const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const MINUTE = 60_000;

/**
 * `buckets` buckets: FUNCTIONS functions of one module, each with a bucket in every one of the last
 * buckets / FUNCTIONS minutes (all inside the window and the 7-day baseline the detector reads).
 * f0 fails 30 % of the time in the window, so every run also records one anomaly.
 */
function* increments(buckets, perBucket) {
  const minutes = buckets / FUNCTIONS;
  for (let m = 0; m < minutes; m += 1) {
    const minute = new Date(Math.floor(NOW / MINUTE) * MINUTE - m * MINUTE).toISOString();
    for (let f = 0; f < FUNCTIONS; f += 1) {
      // 30 %: of each bucket's evaluations, or of the buckets when each holds one evaluation.
      const failing = f === 0 && m < 60;
      const failures = !failing ? 0 : perBucket === 1 ? Number(m % 10 < 3) : Math.round(perBucket * 0.3);
      const time = 0.05 * perBucket;
      yield { policyModule: 'bench.detect', policyFunction: `f${f}`, version: 1, minute, count: perBucket, failures, timeSum: time, timeSquares: 0.0025 * perBucket, max: 0.06 };
    }
  }
}

/**
 * Writes the buckets: through the repository on SQLite; on MongoDB as the documents its repository
 * writes (one writer's share per bucket), inserted in bulk, since FerretDB's upserts would make
 * seeding 100k buckets take many minutes. Seeding is not what is measured.
 */
async function seed(store, tenant, buckets, perBucket) {
  const write =
    store.kind === 'mongo'
      ? (chunk) =>
          store.raw.db.collection('policy_rollups').insertMany(
            chunk.map((i) => ({ _id: `${tenant}:${i.policyModule}:${i.policyFunction}:${i.version}:${i.minute}:bench`, tenantId: tenant, writer: 'bench', ...i })),
            { ordered: false },
          )
      : (chunk) => store.rollups.add(tenant, chunk);
  let chunk = [];
  for (const increment of increments(buckets, perBucket)) {
    chunk.push(increment);
    if (chunk.length === 1000) {
      await write(chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) await write(chunk);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One row: seeds a tenant, runs the detector once untimed (compiling the code) and RUNS times timed. */
async function measureRow(store, buckets, perBucket) {
  const trail = createAuditTrail(store.auditLinks);
  const audit = trail.recorder;
  const settings = createAnomalySettings({ repository: store.anomalySettings, defaults: DEFAULT_DETECTION_SETTINGS, audit });
  const detector = createAnomalyDetector({ store, settings, audit, builtinModules: new Set(), now: () => new Date(NOW) });
  const tenant = `bench-${buckets}-${perBucket}`;
  try {
    const seeded = performance.now();
    await seed(store, tenant, buckets, perBucket);
    const seedSeconds = (performance.now() - seeded) / 1000;
    let report = await detector.detectTenant(tenant);
    const times = [];
    for (let run = 0; run < RUNS; run += 1) {
      const started = performance.now();
      report = await detector.detectTenant(tenant);
      times.push(performance.now() - started);
    }
    if (report.buckets !== buckets) throw new Error(`${store.kind}: detector read ${report.buckets} buckets, ${buckets} were written`);
    if (report.opened + report.updated + report.unchanged !== 1) throw new Error(`${store.kind}: expected one anomaly, got ${JSON.stringify(report)}`);
    return { ms: median(times), seedSeconds };
  } finally {
    await trail.close();
  }
}

/**
 * Every row of a store. `openStore` gives the store for a row: SQLite shares one file (the
 * (tenant, minute) index confines each query to its tenant); MongoDB gets a fresh database per
 * row, because FerretDB's SQLite backend serves only `_id` lookups from an index, so a query
 * would also read the rows before it.
 */
async function measure(name, openStore) {
  const rows = [];
  let perBucketAtSmallest;
  for (const buckets of SIZES[name]) {
    for (const perBucket of [1, 10_000]) {
      const { store, release } = await openStore();
      try {
        const { ms, seedSeconds } = await measureRow(store, buckets, perBucket);
        const usPerBucket = (ms * 1000) / buckets;
        perBucketAtSmallest ??= usPerBucket;
        rows.push({ store: name, buckets, perBucket, ms, usPerBucket, ratio: usPerBucket / perBucketAtSmallest, seedSeconds });
      } finally {
        await release();
      }
    }
  }
  return rows;
}

console.log(`anomaly detection benchmark${quick ? ' (QUICK)' : ''}`);
console.log(
  `workload: one tenant per row, ${FUNCTIONS} functions × (buckets / ${FUNCTIONS}) minutes of rollups inside the 60-minute window and ` +
    `7-day baseline; each bucket stands for 1 or 10,000 evaluations; median of ${RUNS} detector run(s) (detectTenant: rollup totals, ` +
    `rules, one anomaly recorded); ratio = time per bucket against the first row of the same store` +
    (mongoUrl ? '' : '; mongodb skipped (MONGODB_URL not set)'),
);

const rows = [];
const dir = mkdtempSync(join(tmpdir(), 'pe-bench-anomalies-'));
try {
  if (ONLY !== 'mongo') {
    const sqlite = await openSqliteStore(join(dir, 'bench.db'));
    try {
      rows.push(...(await measure('sqlite', async () => ({ store: sqlite, release: async () => {} }))));
    } finally {
      await sqlite.close();
    }
  }
  if (mongoUrl && ONLY !== 'sqlite') {
    rows.push(
      ...(await measure('mongo', async () => {
        const store = await openMongoStore({ url: mongoUrl, database: `pe_bench_${randomBytes(4).toString('hex')}` });
        return {
          store,
          release: async () => {
            await store.raw.db.dropDatabase();
            await store.close();
          },
        };
      })),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

printTable(
  ['store', 'buckets', 'evaluations per bucket', 'detect ms', 'µs per bucket', 'per-bucket ratio', 'seed s'],
  rows.map((r) => [r.store, fmt(r.buckets), fmt(r.perBucket), fmt(r.ms, 1), fmt(r.usPerBucket, 2), `${fmt(r.ratio, 2)}×`, fmt(r.seedSeconds, 1)]),
);
const target = rows.filter((r) => r.store === 'sqlite' && r.buckets === TARGET.buckets);
if (target.length > 0) {
  const worst = Math.max(...target.map((r) => r.ms));
  console.log(`target: ${fmt(TARGET.buckets)} buckets on SQLite in under ${fmt(TARGET.ms)} ms: ${fmt(worst, 0)} ms, ${worst < TARGET.ms ? 'met' : 'NOT met'}`);
}
