// Audit chain benchmark: append throughput, records stored and linked (batched vs one record per
// insert, and from several processes appending to one tenant) and verification speed, on SQLite
// and, when MONGODB_URL is set, on MongoDB / FerretDB; and the canonical JSON of one record
// (canonical.mjs). Imports the build: run through
// `npm run bench:audit` (QUICK=1 for a tiny run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createAuditTrail, createChainPageThreads, createChainVerifier, verifyChain } from '../../dist/src/audit/index.js';
import { openMongoStore, openSqliteStore } from '../../dist/src/store/index.js';
import { printTable as printRows } from '../support/table.mjs';
import { measureCanonical } from './canonical.mjs';
import { mongoFloor, mongoStoreThenLinkFloor, sqliteFloor, sqliteStoreThenLinkFloor } from './floor.mjs';
import { verifyFloorOneThread, verifyFloorThreads } from './verify-floor.mjs';

const quick = process.env.QUICK === '1';
const mongoUrl = process.env.MONGODB_URL?.trim() || undefined;
const BATCH_SIZE = 100;
const PROCESSES = 4;
const ROUNDS = quick ? 1 : 3;
// The API's verification as the service runs it by default (AUDIT_VERIFY_CONCURRENCY).
const VERIFY_THREADS = 2;
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

/**
 * Appends `total` records to one tenant from one trail per store (each connection stands for a
 * process) and times until every one is stored and linked. The process whose linker holds the
 * tenant links them all; the others tell it of their records, as the service's link notices do.
 */
async function appendAll(stores, tenant, total, batchSize) {
  const trails = [];
  for (const store of stores) {
    const trail = createAuditTrail(store.auditLinks, {
      recorder: { batchSize },
      linker: {
        batchSize,
        onHeldElsewhere: (tenantId) => {
          for (const other of trails) if (other !== trail) other.linker.notify(tenantId, { heard: true });
        },
      },
    });
    trails.push(trail);
  }
  const share = Math.ceil(total / trails.length);
  const started = performance.now();
  await Promise.all(
    trails.flatMap((trail, w) =>
      Array.from({ length: Math.min(share, total - w * share) }, (_, i) => trail.recorder.append(tenant, event(w * share + i, `w${w}`)))),
  );
  // Stored: now linked, including what a process told the holder of while it was flushed.
  for (const trail of trails) await trail.flush();
  for (const trail of trails) await trail.linker.settled();
  const seconds = (performance.now() - started) / 1000;
  const { count } = await stores[0].auditLinks.unlinkedSummary(tenant);
  if (count !== 0) throw new Error(`${tenant}: ${count} records left unlinked`);
  await Promise.all(trails.map((trail) => trail.close()));
  return { seconds, batches: trails.reduce((sum, trail) => sum + trail.recorder.stats().batches, 0) };
}

/**
 * Seconds for whole verifications of `tenant` one after the other through the API's verifier,
 * built as the service builds it (src/service/api-app.ts): the first starts its threads (each
 * loads its code and, on SQLite, opens its reader, and its code is compiled as it runs); the median
 * of the `runningWalks` after it finds them running, as in a service that verifies chains often.
 * Without `storedPages`, every page is read here and handed to a thread (what MongoDB always does).
 */
async function verifyThroughApi(store, tenant, total, { storedPages, runningWalks }) {
  const threads = createChainPageThreads(VERIFY_THREADS);
  try {
    const verifier = createChainVerifier({
      records: store.audit,
      check: threads.check,
      ...(storedPages ? { storedPages: threads } : {}),
      concurrency: VERIFY_THREADS,
      fullIntervalMs: 3_600_000,
    });
    const walk = async () => {
      const started = performance.now();
      const result = await verifier.verify(tenant, { full: true });
      const seconds = (performance.now() - started) / 1000;
      if (!result.valid || result.checked !== total) throw new Error(`the API's verification did not verify the benchmark chain: ${JSON.stringify(result)}`);
      return seconds;
    };
    const starting = await walk();
    const running = [];
    for (let i = 0; i < runningWalks; i += 1) running.push(await walk());
    running.sort((a, b) => a - b);
    return { starting, running: running[Math.floor(runningWalks / 2)] };
  } finally {
    await threads.close();
  }
}

/**
 * `floor` is the raw one-step floor (records written straight into the chain); `designFloor(total,
 * writers)`, where given, the raw floor of the service's two steps (stored, then linked) with one
 * writer and, where it can (it returns undefined otherwise), with as many writers as processes:
 * the append rows are compared with the one of their own writer count. `verifyFloors`, where
 * given, the raw floors of verification.
 */
async function measure(name, openConnection, floor, designFloor, verifyFloors) {
  const rows = [];
  const total = workload[name];
  const floorSeconds = await floor(total);
  const floorRates = { one: total / floorSeconds, several: total / floorSeconds };
  rows.push({ store: name, run: 'raw floor: one writer, the chain\'s table and indexes, node:crypto', batch: BATCH_SIZE, records: total, seconds: floorSeconds, batches: Math.ceil(total / BATCH_SIZE), rate: floorRates.one, floorOf: 'one' });
  if (designFloor !== undefined) {
    for (const [writers, key] of [[1, 'one'], [PROCESSES, 'several']]) {
      const designSeconds = await designFloor(total, writers);
      if (designSeconds === undefined) continue;
      floorRates[key] = total / designSeconds;
      if (writers === 1) floorRates.several = floorRates.one;
      rows.push({ store: name, run: `raw floor: stored, then linked (the two steps), ${writers === 1 ? 'one writer' : `${writers} writers`}, node:crypto`, batch: BATCH_SIZE, records: total, seconds: designSeconds, batches: Math.ceil(total / BATCH_SIZE) * 2, rate: floorRates[key], floorOf: key });
    }
  }
  const main = await openConnection();
  const others = await Promise.all(Array.from({ length: PROCESSES - 1 }, () => openConnection()));
  try {
    const baseline = await appendAll([main], 'bench-unbatched', Math.ceil(total / baselineShare), 1);
    const baselineRate = Math.ceil(total / baselineShare) / baseline.seconds;
    rows.push({ store: name, run: 'append, one record per insert', batch: 1, records: Math.ceil(total / baselineShare), ...baseline, rate: baselineRate });

    // Verified after the first round, while the store holds only its chains (FerretDB reads the
    // whole collection for every page); the rows follow the append rows.
    const verifyRows = [];
    const verifyAll = async () => {
      const started = performance.now();
      const result = await verifyChain(main.audit, 'bench-batched', { pageSize: 1000 });
      const seconds = (performance.now() - started) / 1000;
      if (!result.valid || result.checked !== total) throw new Error(`${name}: benchmark chain did not verify: ${JSON.stringify(result)}`);
      const spreadCheck = await verifyChain(main.audit, 'bench-processes', { pageSize: 1000 });
      if (!spreadCheck.valid || spreadCheck.checked !== total) throw new Error(`${name}: the chain appended from ${PROCESSES} processes did not verify`);
      const verifyFloor = verifyFloors ? await verifyFloors('bench-batched', total) : undefined;
      const verifyRow = (run, rowSeconds, floorRow) => ({ store: name, run, batch: '-', records: total, seconds: rowSeconds, batches: '-', rate: total / rowSeconds, floorRate: floorRow?.rate ?? (floorRow === undefined && run.startsWith('raw') ? total / rowSeconds : undefined) });
      const oneThreadFloor = verifyFloor && verifyRow('raw verify floor: 1 thread, better-sqlite3 rows + node:crypto', verifyFloor.oneThread);
      const threadsFloor = verifyFloor && verifyRow(`raw verify floor: ${VERIFY_THREADS} threads, better-sqlite3 rows + node:crypto`, await verifyFloor.threads(VERIFY_THREADS));
      if (verifyFloor) verifyRows.push(oneThreadFloor, threadsFloor);
      verifyRows.push(verifyRow('verify (page 1000)', seconds, oneThreadFloor));
      // Pages read where they are hashed only where the store lets threads read it (SQLite).
      const readsOnThreads = main.audit.pageSource() !== null;
      const runningWalks = readsOnThreads ? 5 : 1;
      const apiRows = async (how, storedPages) => {
        const api = await verifyThroughApi(main, 'bench-batched', total, { storedPages, runningWalks });
        verifyRows.push(verifyRow(`verify through the API, ${how}, ${VERIFY_THREADS} threads starting`, api.starting, threadsFloor));
        verifyRows.push(verifyRow(`verify through the API, ${how}, ${VERIFY_THREADS} threads running (median of ${runningWalks})`, api.running, threadsFloor));
      };
      if (readsOnThreads) await apiRows('pages handed to threads', false);
      await apiRows(readsOnThreads ? 'pages read on threads' : 'pages handed to threads', true);
    };
    // One process and several alternate, each round on fresh tenants, so that a change in the
    // machine's load hits both alike; the rows give the median round and every round's rate.
    const rounds = { one: [], several: [] };
    for (let round = 1; round <= ROUNDS; round += 1) {
      const suffix = round === 1 ? '' : `-${round}`;
      const one = await appendAll([main], `bench-batched${suffix}`, total, BATCH_SIZE);
      rounds.one.push({ ...one, rate: total / one.seconds });
      const several = await appendAll([main, ...others], `bench-processes${suffix}`, total, BATCH_SIZE);
      rounds.several.push({ ...several, rate: total / several.seconds });
      if (round === 1) await verifyAll();
    }
    const median = (runs) => [...runs].sort((a, b) => a.rate - b.rate)[Math.floor(runs.length / 2)];
    const eachRound = (runs) => (runs.length === 1 ? '' : ` (rounds: ${runs.map((r) => fmt(r.rate)).join(', ')})`);
    rows.push({ store: name, run: `append, 1 process${eachRound(rounds.one)}`, batch: BATCH_SIZE, records: total, ...median(rounds.one), floorOf: 'one' });
    rows.push({ store: name, run: `append, ${PROCESSES} processes${eachRound(rounds.several)}`, batch: BATCH_SIZE, records: total, ...median(rounds.several), floorOf: 'several' });
    rows.push(...verifyRows);
    for (const row of rows) {
      row.ratio = row.rate / baselineRate;
      const of = row.run.includes('verify') ? row.floorRate : floorRates[row.floorOf ?? 'one'];
      row.ofFloor = of === undefined ? '-' : row.rate / of;
    }
    return rows;
  } finally {
    await Promise.all(others.map((s) => s.close()));
    await main.cleanup?.();
    await main.close();
  }
}

const fmt = (n, digits = 0) => (typeof n === 'number' ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : n);

function printTable(rows) {
  const header = ['store', 'run', 'batch', 'records', 'seconds', 'inserts', 'records/s', 'vs 1/insert', 'of the floor (two steps, same writers, where measured)'];
  const lines = rows.map((r) => [r.store, r.run, String(r.batch), fmt(r.records), fmt(r.seconds, 2), fmt(r.batches), fmt(r.rate), `${fmt(r.ratio, 1)}×`, typeof r.ofFloor === 'number' ? `${fmt(r.ofFloor, 2)}×` : r.ofFloor]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i < 2 ? ':' : '-') + '-'.repeat(w) + (i < 2 ? '-' : ':')).join('|')}|`);
  for (const l of lines) console.log(line(l));
}

console.log(`audit chain benchmark${quick ? ' (QUICK)' : ''}`);
console.log(
  `workload: one tenant per run; POLICY_EVALUATED events with a ~200-byte payload; insert and link batch size ${BATCH_SIZE}; ` +
    `timed until every record is linked; baseline = batch size 1 on ${100 / baselineShare}% of the records; ` +
    `${PROCESSES} processes = separate connections, each with its own recorder and linker; ` +
    `${ROUNDS} alternating round(s) of 1 and ${PROCESSES} processes, the median shown; ` +
    `sqlite ${fmt(workload.sqlite)} records` + (mongoUrl ? `, mongodb ${fmt(workload.mongo)} records` : ', mongodb skipped (MONGODB_URL not set)') +
    `; a verify row's "of the floor" is against the raw verify floor on as many threads`,
);

const rows = [];
const dir = mkdtempSync(join(tmpdir(), 'pe-bench-audit-'));
try {
  const path = join(dir, 'bench.db');
  // A floor is the best of three runs: each is a fraction of a second, easily disturbed.
  const best = async (run) => Math.min(await run(), await run(), await run());
  const verifyFloors = async (tenant, total) => ({
    oneThread: await best(() => verifyFloorOneThread(path, tenant, total)),
    threads: (threads) => verifyFloorThreads(path, tenant, total, threads, 3),
  });
  rows.push(
    ...(await measure(
      'sqlite',
      () => openSqliteStore(path),
      (total) => sqliteFloor(join(dir, 'floor.db'), total, BATCH_SIZE, event),
      // One writer only: a SQLite file takes one writer at a time, and the floor is one connection.
      (total, writers) => (writers === 1 ? sqliteStoreThenLinkFloor(join(dir, 'floor-two-steps.db'), total, BATCH_SIZE, event) : undefined),
      verifyFloors,
    )),
  );
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
      },
      (total) => mongoFloor(mongoUrl, database, total, BATCH_SIZE, event),
      (total, writers) => mongoStoreThenLinkFloor(mongoUrl, database, total, BATCH_SIZE, event, writers))),
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
