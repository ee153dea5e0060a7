// Where the audit path's store time goes on MongoDB / FerretDB: the service's recorder and linker
// (createAuditTrail, as each process composes them) in this process, one or two "processes" (a
// trail and a connection each, the linker's notices passed between them as Redis would), 12
// closed-loop appenders for one tenant, and every command the driver sends timed through its
// command monitoring, by command and collection. Then the reads of GET /api/v1/audit/verify and
// GET /api/v1/audit/records/{id} once at the chain's final length. No HTTP, no evaluation: what is
// left is the store's share. `MONGODB_URL=… node bench/scale/store-calls.mjs` (QUICK=1 for a short run).
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createAuditTrail } from '../../dist/src/audit/index.js';
import { openMongoStore } from '../../dist/src/store/index.js';
import { percentile } from '../soak/latency-recorder.mjs';
import { fmt, printTable } from '../support/table.mjs';

const quick = process.env.QUICK === '1';
const mongoUrl = process.env.MONGODB_URL?.trim() || undefined;
const APPENDERS = 12;
const SECONDS = quick ? 3 : 20;
const TENANT = 'bench';
const READ_REPEATS = 3;

const event = (i) => ({
  eventType: 'SOURCE_EVALUATED',
  policyModule: 'bench.loan',
  policyFunction: 'price',
  actorId: 'bench-client',
  payload: { result: { approved: i % 3 !== 0, rateBps: 400 + (i % 200) }, executionTimeMs: 0.05, sourceHash: 'f'.repeat(64), context: { amount: 10_000 + i } },
});

/** A store whose every command is timed into `calls` (by `command collection`). */
async function monitoredStore(database, calls) {
  const url = new URL(mongoUrl);
  url.searchParams.set('monitorCommands', 'true');
  const store = await openMongoStore({ url: url.toString(), database });
  const started = new Map();
  store.raw.client.on('commandStarted', (e) => {
    const collection = typeof e.command[e.commandName] === 'string' ? e.command[e.commandName] : '';
    started.set(e.requestId, { key: `${e.commandName} ${collection}`.trim(), documents: e.command.documents?.length ?? e.command.updates?.length ?? e.command.deletes?.length ?? 0 });
  });
  const done = (e) => {
    const begun = started.get(e.requestId);
    started.delete(e.requestId);
    if (begun === undefined || !calls.enabled) return;
    const entry = calls.byKey.get(begun.key) ?? { count: 0, ms: 0, max: 0, documents: 0 };
    entry.count++;
    entry.ms += e.duration;
    entry.max = Math.max(entry.max, e.duration);
    entry.documents += begun.documents;
    calls.byKey.set(begun.key, entry);
  };
  store.raw.client.on('commandSucceeded', done);
  store.raw.client.on('commandFailed', done);
  return store;
}

async function run(processes) {
  const database = `calls_${randomUUID().replaceAll('-', '')}`;
  const calls = { enabled: false, byKey: new Map() };
  const stores = [];
  const trails = [];
  const lags = [];
  try {
    for (let p = 0; p < processes; p++) stores.push(await monitoredStore(database, calls));
    for (const store of stores) {
      const trail = createAuditTrail(store.auditLinks, {
        linker: {
          onLinked: (_tenant, _records, lagMs) => {
            if (calls.enabled) lags.push(...lagMs);
          },
          onHeldElsewhere: (tenantId) => {
            for (const other of trails) if (other !== trail) other.linker.notify(tenantId, { heard: true });
          },
        },
      });
      trail.linker.start(500);
      trails.push(trail);
    }
    // A second of warm-up: leases taken, connections open.
    let stopAt = performance.now() + 1000;
    let appended = 0;
    const appenders = (until) =>
      Promise.all(
        Array.from({ length: APPENDERS }, async (_, a) => {
          const trail = trails[a % trails.length];
          while (performance.now() < until()) {
            await trail.recorder.append(TENANT, event(appended));
            appended++;
          }
        }),
      );
    await appenders(() => stopAt);
    calls.enabled = true;
    appended = 0;
    const started = performance.now();
    stopAt = started + SECONDS * 1000;
    await appenders(() => stopAt);
    const appendSeconds = (performance.now() - started) / 1000;
    for (const trail of trails) await trail.flush();
    for (const trail of trails) await trail.linker.settled();
    const seconds = (performance.now() - started) / 1000;
    calls.enabled = false;
    const { count: left } = await stores[0].auditLinks.unlinkedSummary(TENANT);

    // The verify poll's reads and a receipt's lookup, at the chain's length now.
    const head = await stores[0].audit.head(TENANT);
    const reads = {};
    const time = async (name, read) => {
      const ms = [];
      for (let i = 0; i < READ_REPEATS; i++) {
        const t = performance.now();
        await read();
        ms.push(performance.now() - t);
      }
      reads[name] = ms.sort((a, b) => a - b)[Math.floor(READ_REPEATS / 2)];
    };
    await time('unlinked count and oldest (verify)', () => stores[0].auditLinks.unlinkedSummary(TENANT));
    await time('last 100 records of the chain (verify since the last one)', async () => {
      for await (const _ of stores[0].audit.scan(TENANT, Math.max(1, head.seq - 99), 100));
    });
    let someId = null;
    for await (const record of stores[0].audit.scan(TENANT, Math.max(1, Math.floor(head.seq / 2)), 1)) {
      someId = record.id;
      break;
    }
    await time('one record by id (receipt lookup)', () => stores[0].audit.findById(TENANT, someId));
    const sortedLags = lags.sort((a, b) => a - b);
    return { processes, appended, appendSeconds, seconds, left, chain: head.seq, calls: calls.byKey, lag: { p50: percentile(sortedLags, 50), p99: percentile(sortedLags, 99) }, reads };
  } finally {
    for (const trail of trails) await trail.close().catch(() => {});
    for (const store of stores) await store.close().catch(() => {});
    const client = new MongoClient(mongoUrl);
    try {
      await client.db(database).dropDatabase();
    } finally {
      await client.close();
    }
  }
}

function print(result) {
  console.log(
    `\n${result.processes} process(es): ${fmt(result.appended / result.appendSeconds)} records/s stored by ${APPENDERS} closed-loop appenders over ${fmt(result.appendSeconds, 1)} s, ` +
      `all linked ${fmt((result.seconds - result.appendSeconds) * 1000)} ms after the last append (${result.left} left unlinked); link lag p50 ${fmt(result.lag.p50, 1)} ms, p99 ${fmt(result.lag.p99, 1)} ms; chain ${fmt(result.chain)} records`,
  );
  const rows = [...result.calls]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([key, c]) => [key, fmt(c.count), fmt(c.count / result.seconds, 1), fmt(c.documents / c.count, 1), fmt(c.ms / c.count, 2), fmt(c.max, 1), `${fmt((c.ms / 1000 / result.seconds) * 100)} %`]);
  printTable(['command collection', 'calls', 'calls/s', 'documents per call', 'mean ms', 'max ms', 'time in it (share of the run, summed over concurrent calls)'], rows);
  printTable(
    ['read at the final chain length', 'median ms'],
    Object.entries(result.reads).map(([name, ms]) => [name, fmt(ms, 1)]),
  );
}

async function main() {
  if (mongoUrl === undefined) {
    console.error('MONGODB_URL must name the MongoDB (or FerretDB) to measure');
    process.exit(2);
  }
  console.log(`audit path store calls${quick ? ' (QUICK)' : ''}: ${APPENDERS} closed-loop appenders for one tenant, ${SECONDS} s, a fresh database each`);
  for (const processes of [1, 2]) print(await run(processes));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
