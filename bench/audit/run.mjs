// Audit chain benchmark: append throughput (batched writer vs one record per insert, and with
// racing writers) and verification speed, on SQLite and, when MONGODB_URL is set, on MongoDB /
// FerretDB; and the canonical JSON of one record (canonical.mjs). Imports the build: run through
// `npm run bench:audit` (QUICK=1 for a tiny run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createAuditChainWriter, verifyChain } from '../../dist/src/audit/index.js';
import { openMongoStore, openSqliteStore } from '../../dist/src/store/index.js';
import { printTable as printRows } from '../support/table.mjs';
import { measureCanonical } from './canonical.mjs';

const quick = process.env.QUICK === '1';
const mongoUrl = process.env.MONGODB_URL?.trim() || undefined;
const BATCH_SIZE = 100;
const RACERS = 4;
const workload = {
  sqlite: quick ? 2_000 : 50_000,
  mongo: quick ? 500 : 10_000,
};
// One insert per record is slow by design: it runs on a tenth of the records.
const baselineShare = 10;

const payload = (i) => ({
  result: i % 3 !== 0,
  executionTimeMs: i % 17,
  versionId: `v${1 + (i % 4)}`,
  context: { applicant: { age: 20 + (i % 50), income: 30_000 + i }, requested: 10_000 },
});
const event = (i, actor = 'bench') => ({
  eventType: 'POLICY_EVALUATED',
  policyModule: 'com.acme.lending.personal',
  policyFunction: 'evaluatePersonalLoan',
  actorId: actor,
  payload: payload(i),
});

async function appendAll(repos, tenant, total, batchSize) {
  const writers = repos.map((repo) => createAuditChainWriter(repo, { batchSize, flushIntervalMs: 1 }));
  const share = Math.ceil(total / writers.length);
  const started = performance.now();
  await Promise.all(
    writers.flatMap((writer, w) =>
      Array.from({ length: Math.min(share, total - w * share) }, (_, i) => writer.append(tenant, event(w * share + i, `w${w}`)))),
  );
  await Promise.all(writers.map((writer) => writer.close()));
  const seconds = (performance.now() - started) / 1000;
  const stats = writers.map((writer) => writer.stats());
  return {
    seconds,
    batches: stats.reduce((sum, s) => sum + s.batches, 0),
    conflicts: stats.reduce((sum, s) => sum + s.conflicts, 0),
  };
}

async function measure(name, openConnection) {
  const rows = [];
  const total = workload[name];
  const main = await openConnection();
  const racers = await Promise.all(Array.from({ length: RACERS - 1 }, () => openConnection()));
  try {
    const baseline = await appendAll([main.audit], 'bench-unbatched', Math.ceil(total / baselineShare), 1);
    const baselineRate = Math.ceil(total / baselineShare) / baseline.seconds;
    rows.push({ store: name, run: 'append, one record per insert', batch: 1, records: Math.ceil(total / baselineShare), ...baseline, rate: baselineRate });

    const batched = await appendAll([main.audit], 'bench-batched', total, BATCH_SIZE);
    rows.push({ store: name, run: 'append, 1 writer', batch: BATCH_SIZE, records: total, ...batched, rate: total / batched.seconds });

    const raced = await appendAll([main.audit, ...racers.map((s) => s.audit)], 'bench-raced', total, BATCH_SIZE);
    rows.push({ store: name, run: `append, ${RACERS} racing writers`, batch: BATCH_SIZE, records: total, ...raced, rate: total / raced.seconds });

    const started = performance.now();
    const result = await verifyChain(main.audit, 'bench-batched', { pageSize: 1000 });
    const seconds = (performance.now() - started) / 1000;
    if (!result.valid || result.checked !== total) throw new Error(`${name}: benchmark chain did not verify: ${JSON.stringify(result)}`);
    const raceCheck = await verifyChain(main.audit, 'bench-raced', { pageSize: 1000 });
    if (!raceCheck.valid || raceCheck.checked !== total) throw new Error(`${name}: raced chain did not verify`);
    rows.push({ store: name, run: 'verify (page 1000)', batch: '-', records: total, seconds, batches: '-', conflicts: '-', rate: total / seconds });
    for (const row of rows) row.ratio = row.rate / baselineRate;
    return rows;
  } finally {
    await Promise.all(racers.map((s) => s.close()));
    await main.cleanup?.();
    await main.close();
  }
}

const fmt = (n, digits = 0) => (typeof n === 'number' ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : n);

function printTable(rows) {
  const header = ['store', 'run', 'batch', 'records', 'seconds', 'inserts', 'conflicts', 'records/s', 'vs 1/insert'];
  const lines = rows.map((r) => [r.store, r.run, String(r.batch), fmt(r.records), fmt(r.seconds, 2), fmt(r.batches), fmt(r.conflicts), fmt(r.rate), `${fmt(r.ratio, 1)}×`]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i < 2 ? ':' : '-') + '-'.repeat(w) + (i < 2 ? '-' : ':')).join('|')}|`);
  for (const l of lines) console.log(line(l));
}

console.log(`audit chain benchmark${quick ? ' (QUICK)' : ''}`);
console.log(
  `workload: one tenant per run; POLICY_EVALUATED events with a ~200-byte payload; writer batch size ${BATCH_SIZE}; ` +
    `baseline = batch size 1 on ${100 / baselineShare}% of the records; ${RACERS} racing writers use separate connections; ` +
    `sqlite ${fmt(workload.sqlite)} records` + (mongoUrl ? `, mongodb ${fmt(workload.mongo)} records` : ', mongodb skipped (MONGODB_URL not set)'),
);

const rows = [];
const dir = mkdtempSync(join(tmpdir(), 'pe-bench-audit-'));
try {
  const path = join(dir, 'bench.db');
  rows.push(...(await measure('sqlite', () => openSqliteStore(path))));
  if (mongoUrl) {
    const database = `pe_bench_${randomBytes(4).toString('hex')}`;
    let first = true;
    rows.push(
      ...(await measure('mongo', async () => {
        const store = await openMongoStore({ url: mongoUrl, database });
        if (first) {
          first = false;
          store.cleanup = () => store.raw.db.dropDatabase();
        }
        return store;
      })),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
printTable(rows);

console.log('\ncanonical JSON of one evaluation record (the payload above: ~440 bytes of text); median of rounds');
printRows(
  ['writer', 'µs per record', 'vs `canonicalize`'],
  measureCanonical(event, quick).map((row) => [row.name, fmt(row.us, 2), `${fmt(row.speedup, 1)}×`]),
);
