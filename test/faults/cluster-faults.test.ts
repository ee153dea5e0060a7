// The deployment scaled out on MongoDB (FerretDB) — two API and two worker processes, a redis-server
// and a FerretDB of the suite's own — under a steady mixed load (signed evaluate-source, deployed
// policies, batches, GraphQL decisions, workflow starts and signals, anomaly changes with
// Idempotency-Keys), while one part after another fails. After each scenario: every request got an
// answer or a clear error in time (never a hang), the tenant's stored audit records are all linked
// within a bounded wait, every evaluation answered 200 is in the audit chain exactly once, the
// chain verifies with the offline verifier, every workflow finished with a gapless log, and each
// anomaly change happened once per key. The table printed at the end is the one in docs/deployment.md.
import { afterAll, describe, expect, it } from 'vitest';
import { FAULT_TENANT, type FaultCluster, type LinkerHolder } from './support/fault-cluster.js';
import { findingsTable, runFaultScenario, type ScenarioResult } from './support/fault-scenario.js';
import { expectKeptPromises } from './support/kept-promises.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SCENARIO_TIMEOUT_MS = 300_000;

const results: ScenarioResult[] = [];

/** The process linking the fault tenant's chain: the load keeps one busy, but a lease may be between holders. */
async function holderOf(cluster: FaultCluster, other?: LinkerHolder): Promise<LinkerHolder> {
  // A take-over comes within a lease (3 s), half a lease of not asking again and a sweep: 15 s is ample.
  for (let tries = 0; tries < 150; tries += 1) {
    const holder = await cluster.linkerHolder(FAULT_TENANT);
    if (holder !== null && holder.pid !== other?.pid) return holder;
    await pause(100);
  }
  throw new Error(`no live process${other ? ' other than the old holder' : ''} holds the linker lease of the fault tenant`);
}

async function scenario(name: string, faults: (cluster: FaultCluster) => Promise<void>, options: { everyAuditedAnswered: boolean }): Promise<void> {
  const result = await runFaultScenario(name, faults);
  results.push(result);
  expectKeptPromises(result, options);
}

describe('faults under load, scaled out on MongoDB', () => {
  afterAll(() => {
    if (results.length > 0) console.log(`\nfault scenarios (2 API + 2 worker processes, FerretDB, own redis-server)\n${findingsTable(results)}\n`);
  });

  it(
    'a worker killed with SIGKILL, then the other one; a new worker started later',
    () =>
      scenario(
        'worker kill -9, twice',
        async (cluster) => {
          await cluster.stop('worker', 0, 'SIGKILL');
          await pause(4000);
          await cluster.stop('worker', 0, 'SIGKILL');
          await pause(3000);
          await cluster.start('worker');
          await pause(3000);
        },
        { everyAuditedAnswered: true },
      ),
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'Redis stopped for 5 s, then restarted with its data',
    () =>
      scenario(
        'Redis down 5 s, back with its data',
        async (cluster) => {
          await cluster.redis.stop();
          await pause(5000);
          await cluster.redis.start({ keepData: true });
          await pause(3000);
        },
        { everyAuditedAnswered: false },
      ),
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'Redis stopped for 5 s, then restarted without its data',
    () =>
      scenario(
        'Redis down 5 s, back empty',
        async (cluster) => {
          await cluster.redis.stop();
          await pause(5000);
          await cluster.redis.start({ keepData: false });
          await pause(3000);
        },
        { everyAuditedAnswered: false },
      ),
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'the store stopped for 10 s, then restarted',
    () =>
      scenario(
        'store down 10 s',
        async (cluster) => {
          await cluster.store.stop();
          await pause(10_000);
          await cluster.store.start();
          await pause(3000);
        },
        { everyAuditedAnswered: false },
      ),
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'the store frozen for 10 s (SIGSTOP: connections open, nothing answers), then thawed',
    () =>
      scenario(
        'store frozen 10 s',
        async (cluster) => {
          cluster.store.freeze();
          await pause(10_000);
          cluster.store.thaw();
          await pause(3000);
        },
        { everyAuditedAnswered: false },
      ),
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'an API process killed with SIGKILL with requests in flight',
    () =>
      scenario(
        'API kill -9',
        async (cluster) => {
          await cluster.stop('api', 0, 'SIGKILL');
          await pause(3000);
          await cluster.start('api');
          await pause(2000);
        },
        { everyAuditedAnswered: false },
      ),
    SCENARIO_TIMEOUT_MS,
  );

  it(
    "the linker's holder killed with SIGKILL while it links; another takes the tenant over after its lease",
    () =>
      scenario(
        'linker holder kill -9',
        async (cluster) => {
          const holder = await holderOf(cluster);
          await cluster.stop(holder.role, holder.index, 'SIGKILL');
          // AUDIT_LINK_LEASE_SECONDS is 3 here: a sweep of another process takes the tenant over.
          const next = await holderOf(cluster, holder);
          expect(next.epoch).toBeGreaterThan(holder.epoch);
          await cluster.start(holder.role);
          await pause(2000);
        },
        { everyAuditedAnswered: false },
      ),
    SCENARIO_TIMEOUT_MS,
  );

  it(
    "the linker's holder frozen (SIGSTOP) past its lease, then resumed: the stale holder writes nothing",
    () =>
      scenario(
        'linker holder frozen 6 s',
        async (cluster) => {
          const stale = await holderOf(cluster);
          cluster.freeze(stale.role, stale.index);
          let next: LinkerHolder;
          try {
            next = await holderOf(cluster, stale);
            await pause(1000);
          } finally {
            cluster.thaw(stale.role, stale.index);
          }
          await pause(3000);
          // Every link is an entry of the tenant's link log naming its holder and epoch: none was
          // appended with the stale lease after the take-over (whose entry number is its epoch).
          const store = await cluster.openStore();
          const written = await store.raw.db
            .collection('audit_link_log')
            .countDocuments({ tenantId: FAULT_TENANT, holder: stale.holder, epoch: stale.epoch, n: { $gt: next.epoch } });
          expect(written).toBe(0);
        },
        { everyAuditedAnswered: false },
      ),
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'every process replaced with SIGTERM under load (rolling restart)',
    () =>
      scenario(
        'rolling restart (SIGTERM each)',
        async (cluster) => {
          for (const role of ['worker', 'worker', 'api', 'api'] as const) {
            await cluster.start(role);
            await cluster.stop(role, 0, 'SIGTERM');
            await pause(1000);
          }
        },
        { everyAuditedAnswered: true },
      ),
    SCENARIO_TIMEOUT_MS,
  );
});
