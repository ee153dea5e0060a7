// Scale-out benchmark: does a second `api` process add answers for one tenant? The built service runs
// as real processes (scale-service.mjs): one `worker` and first one, then two `api` processes, each
// configuration on a fresh store of its own (SQLite in a temp DATA_DIR; and, when MONGODB_URL is set,
// a MongoDB / FerretDB database of its own) and the local Redis under a unique key prefix. 12
// closed-loop clients send signed evaluate-source requests for one tenant, split evenly across the
// APIs. Per configuration: answered/s (200s), p50/p99, errors; link lag from the histograms of every
// process and from GET /api/v1/audit/verify polled every second (largest `unlinked` and
// `oldestUnlinkedAgeMs`, and how long after the load stops `unlinked` reaches 0); then the chain is
// verified in full, holds exactly one record per answer, and a sample of the answers' receipts
// (X-Audit-Record-Id, X-Audit-Content-Hash) is looked up by id. The table ends with two APIs / one
// API measured in the same run. Run through `npm run bench:scale` (QUICK=1 for a seconds-long run).
import { availableParallelism, cpus, loadavg } from 'node:os';
import { createJwtKeyRing, createTokenSigner, parseJwtKeysSpec } from '../../dist/src/auth/index.js';
import { FUNCTION_NAME, POLICY_SOURCE, SAMPLES } from '../language/loan-pricing.mjs';
import { TENANT } from '../support/bench-service.mjs';
import { fmt, printTable } from '../support/table.mjs';
import { createHttpClient } from '../soak/http-client.mjs';
import { percentile } from '../soak/latency-recorder.mjs';
import { cpuSeconds } from '../soak/process-usage.mjs';
import { bearerHeaders, signedHeaders, transportFailure } from '../soak/request-mix.mjs';
import { removeSoakService } from '../soak/soak-service.mjs';
import { lagQuantile, pollUnlinked, scrapeLinkLag } from './link-lag.mjs';
import { storeServerPid } from './store-server.mjs';
import { prepareScaleService, startScaleService, stopScaleService } from './scale-service.mjs';

const quick = process.env.QUICK === '1';
const mongoUrl = process.env.MONGODB_URL?.trim() || undefined;
const CLIENTS = 12;
const API_COUNTS = [1, 2];
const WARMUP_SECONDS = quick ? 1 : 5;
const MEASURE_SECONDS = quick ? 3 : 30;
// Rounds alternate one API, two APIs, so that a change in the machine's load hits both alike.
const ROUNDS = quick ? 1 : 2;
// GET /api/v1/audit/verify while the load runs (VERIFY_POLL_MS=0: only after it stops). On FerretDB
// each poll reads the whole chain collection (it sorts without an index), a load of its own.
const POLL_MS = pollInterval();
const DRAIN_POLL_MS = 100;
const DRAIN_TIMEOUT_MS = 120_000;
// Receipts looked up by id: on FerretDB each lookup reads the whole chain collection, so fewer.
const RECEIPT_SAMPLE = { SQLite: quick ? 20 : 200, MongoDB: quick ? 10 : 30 };
const SOURCE_PATH = '/api/v1/policies/evaluate-source';

function pollInterval() {
  const value = Number(process.env.VERIFY_POLL_MS ?? 1000);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`VERIFY_POLL_MS must be a whole number of ms (0: no polls while the load runs); got \`${process.env.VERIFY_POLL_MS}\``);
    process.exit(2);
  }
  return value;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ascending = (a, b) => a - b;
const sourceBodies = SAMPLES.map((context) => JSON.stringify({ source: POLICY_SOURCE, functionName: FUNCTION_NAME, context, locale: 'en-US' }));

/** Which stores run: SQLite always (the baseline store), MongoDB when MONGODB_URL is set; SCALE_STORES=mongodb|sqlite picks one. */
function storesToRun() {
  const chosen = (process.env.SCALE_STORES ?? 'sqlite,mongodb').split(',').map((s) => s.trim());
  const stores = [];
  if (chosen.includes('sqlite')) stores.push({ name: 'SQLite', mongodbUrl: undefined });
  if (chosen.includes('mongodb') && mongoUrl !== undefined) stores.push({ name: 'MongoDB', mongodbUrl: mongoUrl });
  return stores;
}

async function adminToken(env) {
  const signer = createTokenSigner(createJwtKeyRing(parseJwtKeysSpec(env.JWT_KEYS), 'JWT_KEYS'));
  return signer.sign({ subject: 'scale-auditor', tenantId: TENANT, roles: ['ADMIN'], ttlSeconds: 3600 });
}

/** CPU seconds so far of each service process, this load generator and the store's server (when found). */
function cpuNow(processes, storePid) {
  const usage = Object.fromEntries(processes.map((p) => [p.name, cpuSeconds(p.running.child.pid)]));
  const { user, system } = process.cpuUsage();
  usage.generator = (user + system) / 1e6;
  usage.store = storePid === null ? null : cpuSeconds(storePid);
  return usage;
}

/** One configuration: a fresh service with `apis` API processes, driven for warm-up + measurement. */
async function runConfiguration(store, apis, round) {
  const prepared = await prepareScaleService({ mongodbUrl: store.mongodbUrl, apis });
  let processes = [];
  const clients = [];
  try {
    processes = await startScaleService(prepared);
    for (const base of prepared.bases) clients.push(createHttpClient(base, { maxSockets: CLIENTS }));
    const admin = bearerHeaders(await adminToken(prepared.env.worker));
    const getAdmin = async (path) => {
      const answer = await clients[0].request('GET', path, admin);
      if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
      return answer.body;
    };
    const before = await getAdmin('/api/v1/audit/verify');
    const recordsBefore = before.headSeq + before.unlinked;
    const storePid = store.mongodbUrl === undefined ? null : storeServerPid(store.mongodbUrl);

    // Answers and their receipts, from the first request on; latencies only while measuring.
    const receipts = [];
    const failures = new Map();
    let measuring = false;
    let measured = { answered: 0, latencies: [] };
    let stopAt = 0;
    const send = async (client, i) => {
      const body = sourceBodies[i % sourceBodies.length];
      const startedAt = performance.now();
      const answer = await client.request('POST', SOURCE_PATH, signedHeaders('POST', SOURCE_PATH, body, prepared.secret), body);
      const latency = performance.now() - startedAt;
      const failure = transportFailure(answer) ?? (answer.body?.error === null ? null : `evaluation ${answer.body?.code ?? 'ANSWER_MALFORMED'}`);
      if (answer.status === 200) receipts.push({ id: answer.headers['x-audit-record-id'], contentHash: answer.headers['x-audit-content-hash'] });
      if (failure !== null) failures.set(failure, (failures.get(failure) ?? 0) + 1);
      if (measuring && failure === null) {
        measured.answered++;
        measured.latencies.push(latency);
      }
    };
    // Each API answers one request before the clock starts: one that fails here would fail throughout.
    for (const client of clients) await send(client, 0);
    if (failures.size > 0) throw new Error(`evaluate-source fails before the run: ${[...failures.keys()].join(', ')}`);

    const callers = Array.from({ length: CLIENTS }, async (_, c) => {
      const client = clients[c % clients.length];
      for (let i = c; stopAt === 0 || performance.now() < stopAt; i += CLIENTS) await send(client, i);
    });
    const warmupEnd = performance.now() + WARMUP_SECONDS * 1000;
    stopAt = warmupEnd + MEASURE_SECONDS * 1000;
    await sleep(warmupEnd - performance.now());

    const lagFrom = await scrapeLinkLag(processes);
    const cpuFrom = cpuNow(processes, storePid);
    const loadFrom = loadavg()[0];
    const poller = POLL_MS === 0 ? null : pollUnlinked(() => getAdmin('/api/v1/audit/verify'), POLL_MS);
    measuring = true;
    const measureStarted = performance.now();
    await sleep(stopAt - performance.now());
    measuring = false;
    const seconds = (performance.now() - measureStarted) / 1000;
    await Promise.all(callers);
    const cpuTo = cpuNow(processes, storePid);
    const loadTo = loadavg()[0];
    const drainPoller = poller ?? pollUnlinked(() => getAdmin('/api/v1/audit/verify'), DRAIN_POLL_MS);
    const drainMs = await drainPoller.drain(DRAIN_POLL_MS, DRAIN_TIMEOUT_MS);
    await drainPoller.stop();
    const lagTo = await scrapeLinkLag(processes);

    // The chain: verified from seq 1, one record per answer, and a sample of receipts found linked.
    const verification = await getAdmin('/api/v1/audit/verify?full=true');
    const answeredAll = receipts.length;
    const sample = sampleOf(receipts, RECEIPT_SAMPLE[store.name]);
    let receiptsFound = 0;
    const receiptProblems = [];
    for (const receipt of sample) {
      const answer = await clients[0].request('GET', `/api/v1/audit/records/${receipt.id}`, admin);
      if (answer.status === 200 && answer.body.linked === true && answer.body.contentHash === receipt.contentHash && answer.body.seq <= verification.headSeq) receiptsFound++;
      else if (receiptProblems.length < 3) receiptProblems.push(`${receipt.id}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
    }
    for (const client of clients) client.close();
    clients.length = 0;
    await stopScaleService(processes);
    const logLines = processes.map((p) => ({ name: p.name, warn: p.logs.warn, error: p.logs.error, first: p.logs.first }));
    processes = [];

    const sorted = measured.latencies.sort(ascending);
    const cpuPercent = (name) => (cpuFrom[name] === null || cpuTo[name] === null ? null : ((cpuTo[name] - cpuFrom[name]) / seconds) * 100);
    const apiNames = Array.from({ length: apis }, (_, i) => `api ${i + 1}`);
    return {
      store: store.name,
      apis,
      round,
      answeredPerSecond: measured.answered / seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      failures,
      lag: { p50: lagQuantile(lagFrom, lagTo, 0.5), p99: lagQuantile(lagFrom, lagTo, 0.99) },
      unlinked: poller?.seen ?? null,
      drainMs,
      cpu: { apis: apiNames.map(cpuPercent), worker: cpuPercent('worker'), generator: cpuPercent('generator'), store: cpuPercent('store') },
      load: (loadFrom + loadTo) / 2,
      chain: {
        valid: verification.valid === true,
        records: verification.headSeq,
        expected: recordsBefore + answeredAll,
        unlinkedAtEnd: verification.unlinked,
        answered: answeredAll,
        sampled: sample.length,
        receiptsFound,
        receiptProblems,
      },
      logLines,
    };
  } finally {
    for (const client of clients) client.close();
    if (processes.length > 0) await stopScaleService(processes).catch((error) => console.error(String(error)));
    await removeSoakService(prepared);
  }
}

/** Up to `n` receipts spread evenly over the run (the first and the last included). */
function sampleOf(receipts, n) {
  if (receipts.length <= n) return receipts;
  return Array.from({ length: n }, (_, i) => receipts[Math.round((i * (receipts.length - 1)) / (n - 1))]);
}

const ms = (value, digits = 1) => (value === null ? '-' : fmt(value, digits));
const lagCell = ({ ms: value, beyond }) => (value === null ? '-' : `${beyond ? '> ' : ''}${fmt(value, 1)}`);
const percentCell = (value) => (value === null ? '-' : fmt(value));

function printResults(results) {
  console.log('\nPer configuration (answered/s, latency and CPU over the measured stretch; link lag of the records linked from its start until `unlinked` is 0):');
  printTable(
    [
      'store',
      'API processes',
      'round',
      'answered/s',
      'p50 ms',
      'p99 ms',
      'errors',
      'link lag p50 / p99 ms (histogram)',
      'max unlinked (verify)',
      'max oldest unlinked ms',
      'unlinked 0 after the stop, ms',
      'CPU % api(s) / worker / store server / generator',
      'chain',
      'machine load',
    ],
    results.map((r) => [
      r.store,
      String(r.apis),
      String(r.round),
      fmt(r.answeredPerSecond),
      ms(r.p50),
      ms(r.p99),
      r.failures.size === 0 ? '0' : [...r.failures].map(([code, n]) => `${code} ${n}`).join(', '),
      `${lagCell(r.lag.p50)} / ${lagCell(r.lag.p99)}`,
      r.unlinked === null ? 'not polled' : fmt(r.unlinked.maxUnlinked),
      r.unlinked === null ? 'not polled' : fmt(r.unlinked.maxOldestAgeMs),
      r.drainMs === null ? `> ${fmt(DRAIN_TIMEOUT_MS)}` : fmt(r.drainMs),
      `${r.cpu.apis.map(percentCell).join('+')} / ${percentCell(r.cpu.worker)} / ${percentCell(r.cpu.store)} / ${percentCell(r.cpu.generator)}`,
      chainCell(r.chain),
      fmt(r.load, 1),
    ]),
  );

  console.log('\nTwo API processes against one, same store, same run (answered/s; rounds alternate):');
  const rows = [];
  for (const store of [...new Set(results.map((r) => r.store))]) {
    const of = (apis) => results.filter((r) => r.store === store && r.apis === apis).map((r) => r.answeredPerSecond);
    const one = of(1);
    const two = of(2);
    const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
    rows.push([store, one.map((v) => fmt(v)).join(', '), two.map((v) => fmt(v)).join(', '), `**${fmt(mean(two) / mean(one), 2)}×**`]);
  }
  printTable(['store', 'one API', 'two APIs', 'two / one (means)'], rows);

  for (const r of results) {
    const notes = [];
    if (r.chain.receiptProblems.length > 0) notes.push(`receipts not found: ${r.chain.receiptProblems.join(' | ')}`);
    if (r.unlinked !== null && r.unlinked.failures > 0) notes.push(`${r.unlinked.failures} of ${r.unlinked.polls} verify polls failed`);
    for (const p of r.logLines) if (p.warn + p.error > 0) notes.push(`${p.name}: ${p.warn} warn, ${p.error} error log lines; first: ${p.first.join(' | ')}`);
    if (notes.length > 0) console.log(`\n${r.store}, ${r.apis} API, round ${r.round}: ${notes.join('; ')}`);
  }
  const polled = results.filter((r) => r.unlinked !== null);
  console.log(
    `\n${polled.length === 0 ? 'verify not polled while the load ran' : `verify polls while the load ran: slowest ${fmt(Math.max(...polled.map((r) => r.unlinked.slowestPollMs)))} ms`}; ` +
      `chain = full verification valid, records linked = records before + 200s answered, and the sampled receipts found linked with their content hash`,
  );
}

function chainCell(chain) {
  const complete = chain.records === chain.expected && chain.unlinkedAtEnd === 0;
  const receipts = chain.receiptsFound === chain.sampled;
  const verdict = chain.valid && complete && receipts ? 'ok' : 'FAIL';
  return `${verdict}: ${chain.valid ? 'valid' : 'INVALID'}, ${fmt(chain.records)} records for ${fmt(chain.expected)} expected, receipts ${chain.receiptsFound}/${chain.sampled}`;
}

async function main() {
  const stores = storesToRun();
  console.log(`scale-out benchmark${quick ? ' (QUICK: too short for the figures to mean much)' : ''}`);
  console.log(`  machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), Node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; load generator in this process`);
  console.log(
    `  service: dist/src/main.js as one \`worker\` and 1 or 2 \`api\` processes, a fresh store each; ${stores.map((s) => s.name).join(' and ')}` +
      `${mongoUrl === undefined ? ' (MongoDB skipped: MONGODB_URL not set)' : ''}; LOG_LEVEL=warn`,
  );
  console.log(
    `  load: ${CLIENTS} closed-loop clients, signed evaluate-source (loan-pricing rule, ${SAMPLES.length} contexts in rotation), one tenant, split evenly across the APIs; ` +
      `${WARMUP_SECONDS} s warm-up, ${MEASURE_SECONDS} s measured, ${ROUNDS} round(s); ` +
      `${POLL_MS === 0 ? 'verify not polled while the load runs' : `verify polled every ${POLL_MS} ms`} (every ${DRAIN_POLL_MS} ms after the stop)`,
  );
  const results = [];
  for (const store of stores) {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const apis of API_COUNTS) {
        const result = await runConfiguration(store, apis, round);
        results.push(result);
        console.log(
          `  ${store.name}, ${apis} API, round ${round}: ${fmt(result.answeredPerSecond)} answered/s, p99 ${ms(result.p99)} ms, link lag p99 ${lagCell(result.lag.p99)} ms, ` +
            `unlinked 0 ${result.drainMs === null ? 'never' : `${fmt(result.drainMs)} ms`} after the stop, chain ${chainCell(result.chain)}, load ${fmt(result.load, 1)}`,
        );
      }
    }
  }
  printResults(results);
  if (results.some((r) => chainCell(r.chain).startsWith('FAIL') || r.drainMs === null)) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
