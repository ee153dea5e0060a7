// The deployment a fault scenario breaks: its own redis-server (or Redis Cluster) and FerretDB, and API and worker
// processes of the built service on the MongoDB store, each of which the scenario may kill,
// stop gracefully or start again.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTenantCli } from '../../../scripts/tenant.js';
import { openMongoStore, type MongoStore } from '../../../src/store/index.js';
import { assertServiceBuilt, runService, type ServiceProcess } from '../../support/index.js';
import { startOwnFerretDb, type OwnFerretDb } from './own-ferretdb.js';
import { startOwnRedis, type OwnRedis } from './own-redis.js';
import { stopProcess } from './stop-process.js';

export const FAULT_TENANT = 'fault-acme';
export const JWT_KID = 'fault';
export const JWT_SECRET = 'fault-suite-jwt-secret-0123456789abcdef';

interface Member {
  role: 'api' | 'worker';
  process: ServiceProcess;
  /** API processes: where clients reach it. */
  base?: string;
}

/** Who links a tenant's chain, as its head document says: a member of the cluster, or none. */
export interface LinkerHolder {
  role: 'api' | 'worker';
  /** Among the live processes of its role (what stop() takes). */
  index: number;
  pid: number;
  holder: string;
  epoch: number;
}

/** The Redis a deployment runs on: how to start it in the deployment's directory, and the settings naming it. */
export interface RedisChoice<R> {
  start(dir: string): Promise<R>;
  env(redis: R): Record<string, string>;
  stop(redis: R): Promise<void>;
}

/** A redis-server of the deployment's own (the default). */
export const OWN_REDIS: RedisChoice<OwnRedis> = {
  start: (dir) => startOwnRedis(dir),
  env: (redis) => ({ REDIS_URL: redis.url }),
  stop: (redis) => redis.stop(),
};

export interface FaultCluster<R = OwnRedis> {
  readonly redis: R;
  readonly store: OwnFerretDb;
  readonly env: Readonly<Record<string, string>>;
  /** The tenant's signing secret. */
  readonly secret: string;
  /** Addresses of the API processes that are up (what a load balancer would route to). */
  apiBases(): string[];
  /** Starts another process of the role; resolves once it is ready. */
  start(role: 'api' | 'worker'): Promise<void>;
  /** Signals the `index`-th live process of the role (SIGKILL: dies at once; SIGTERM: drains) and waits for its exit. */
  stop(role: 'api' | 'worker', index: number, signal: NodeJS.Signals): Promise<void>;
  live(role: 'api' | 'worker'): number;
  /** The live process holding the tenant's linker lease (its holder name carries its pid), or null. */
  linkerHolder(tenantId: string): Promise<LinkerHolder | null>;
  /** SIGSTOP (frozen: connections open, nothing runs) or SIGCONT to a live process; it stays routed to. */
  freeze(role: 'api' | 'worker', index: number): void;
  thaw(role: 'api' | 'worker', index: number): void;
  /** A store client of the test's own, for seeding and for checking what was stored. */
  openStore(): Promise<MongoStore>;
  /** Stderr and error log lines of every process so far (for failure messages). */
  troubles(): string[];
  close(): Promise<void>;
}

export interface FaultClusterOptions<R> {
  redis: RedisChoice<R>;
  apis?: number;
  workers?: number;
  /** Runs against the store (e.g. seeding) before any service process starts. */
  seed?: (store: MongoStore) => Promise<void>;
}

export async function startFaultCluster<R>(options: FaultClusterOptions<R>): Promise<FaultCluster<R>> {
  assertServiceBuilt();
  const dir = await mkdtemp(join(tmpdir(), 'pe-fault-cluster-'));
  const redis = await options.redis.start(dir);
  const store = await startOwnFerretDb(join(dir, 'ferretdb'));
  const env: Record<string, string> = {
    DATA_DIR: dir,
    MONGODB_URL: store.url,
    MONGODB_DATABASE: 'faults',
    ...options.redis.env(redis),
    REDIS_KEY_PREFIX: `fault-${randomUUID().slice(0, 8)}`,
    JWT_KEYS: `${JWT_KID}:${JWT_SECRET}`,
    HOST: '127.0.0.1',
    PORT: '0',
    RATE_LIMIT_POINTS: '100000000',
    ENGINE_THREADS: '1',
    // A dead worker's workflow jobs are taken over after this, not the default 30 s.
    WORKFLOW_JOB_LOCK_SECONDS: '3',
    // Workflows whose jobs Redis lost are resumed after about two of these, not the default 60 s.
    WORKFLOW_RESUME_INTERVAL_SECONDS: '5',
    SHUTDOWN_GRACE_SECONDS: '15',
    // A frozen store answers 503 after this, well inside the suite's 15 s hang limit (default 10 s).
    MONGODB_SOCKET_TIMEOUT_MS: '3000',
    // A change stored while its audit record failed has its record written within half a minute, not
    // the default minute, so the findings can wait for every owed record. Still longer than a write
    // can be held up here (a 10 s freeze, then the 3 s socket timeout), so the writer and the
    // follower never both write one.
    AUDIT_OUTBOX_LEASE_SECONDS: '30',
    AUDIT_OUTBOX_INTERVAL_SECONDS: '1',
    // A dead or frozen linker's tenants are taken over after this, not the default 10 s.
    AUDIT_LINK_LEASE_SECONDS: '3',
  };
  const members: Member[] = [];
  const ended: Member[] = [];
  const opened: MongoStore[] = [];

  const openStore = async () => {
    const opened1 = await openMongoStore({ url: store.url, database: env.MONGODB_DATABASE!, timeouts: { serverSelectionMs: 20_000 } });
    opened.push(opened1);
    return opened1;
  };

  const created: string[] = [];
  await runTenantCli(['create', FAULT_TENANT], { env, out: (line) => created.push(line), err: () => {} });
  const secret = created.at(-1)!;
  if (options.seed) await options.seed(await openStore());

  async function start(role: 'api' | 'worker'): Promise<void> {
    const process = runService(['--role', role], env);
    const member: Member = { role, process };
    members.push(member);
    if (role === 'api') member.base = `http://127.0.0.1:${(await process.waitForLog('api listening')).port as number}`;
    else await process.waitForLog('service started');
  }

  const liveOf = (role: 'api' | 'worker') => members.filter((m) => m.role === role);

  for (let i = 0; i < (options.workers ?? 2); i += 1) await start('worker');
  for (let i = 0; i < (options.apis ?? 2); i += 1) await start('api');

  return {
    redis,
    store,
    env,
    secret,
    // A starting API is not routed to until it listens.
    apiBases: () => liveOf('api').flatMap((m) => (m.base === undefined ? [] : [m.base])),
    start,
    async stop(role, index, signal) {
      const member = liveOf(role)[index];
      if (!member) throw new Error(`no live ${role} number ${index}`);
      // Out of the routing table first, as a load balancer takes a draining instance out.
      members.splice(members.indexOf(member), 1);
      ended.push(member);
      await stopProcess(member.process.child, signal);
    },
    live: (role) => liveOf(role).length,
    async linkerHolder(tenantId) {
      const client = await openStore();
      const head = await client.raw.db.collection<{ _id: string; holder: string; epoch: number }>('audit_chain_heads').findOne({ _id: tenantId });
      if (head === null) return null;
      // A holder is named `host:pid:random` (newLinkerHolder).
      const pid = Number(head.holder.split(':').at(-2));
      for (const role of ['api', 'worker'] as const) {
        const index = liveOf(role).findIndex((m) => m.process.child.pid === pid);
        if (index >= 0) return { role, index, pid, holder: head.holder, epoch: head.epoch };
      }
      return null;
    },
    freeze(role, index) {
      liveOf(role)[index]!.process.child.kill('SIGSTOP');
    },
    thaw(role, index) {
      liveOf(role)[index]!.process.child.kill('SIGCONT');
    },
    openStore,
    troubles: () =>
      [...members, ...ended].flatMap((m) => [
        ...m.process.stderr.map((line) => `${m.role} stderr: ${line}`),
        ...m.process.lines.filter((line) => Number(line.level) >= 50).map((line) => `${m.role} error: ${JSON.stringify(line).slice(0, 2000)}`),
      ]),
    async close() {
      for (const member of members) await stopProcess(member.process.child, 'SIGKILL');
      for (const client of opened) await client.close().catch(() => undefined);
      await store.stop();
      await options.redis.stop(redis);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
