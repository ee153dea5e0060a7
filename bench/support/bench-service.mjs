// The built service as the benchmarks drive it: role `all` (API, BullMQ `policy-evaluate` queue and
// worker threads in one process), SQLite store in a temp DATA_DIR holding one tenant, local Redis
// under a unique key prefix that is removed afterwards.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { openSqliteStore } from '../../dist/src/store/index.js';
import { createTenantService } from '../../dist/src/tenants/index.js';
import { projectRoot, startChild, stopChild, unusedPort, waitForReady } from './child-process.mjs';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const TENANT = 'bench';
export const ROLE = 'MEMBER';
/** The role of the benchmarks' deploys: an active deploy needs ADMIN. */
export const DEPLOY_ROLE = 'ADMIN';

const TUNING_VARIABLES = ['ENGINE_THREADS', 'WORKER_CONCURRENCY', 'BATCH_MAX_ITEMS', 'DISPATCH_FLUSH_MS', 'DISPATCH_MAX_IN_FLIGHT', 'PROGRAM_CACHE_SIZE'];

/** The data directory (with the tenant registered), port and environment of one service run. */
export async function prepareBenchService(name) {
  const dataDir = mkdtempSync(join(tmpdir(), `pe-bench-${name}-`));
  const prefix = `bench-${randomUUID()}`;
  const port = await unusedPort();

  // The tenant and its signing secret, in the store the service will open.
  const storePath = join(dataDir, 'policy-engine.sqlite');
  const store = await openSqliteStore(storePath);
  const { secret } = (await createTenantService(store.tenants).register(TENANT)).secret;
  await store.close();

  const env = {
    ROLE: 'all',
    DATA_DIR: dataDir,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    HOST: '127.0.0.1',
    PORT: String(port),
    JWT_KEYS: `bench:${randomBytes(32).toString('base64url')}`,
    // The limiter still runs (one Redis call per request); the quota is set above what a run can spend.
    RATE_LIMIT_POINTS: '1000000000',
    // One JSON line per request would measure the log pipe; warnings and errors still show.
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(TUNING_VARIABLES.filter((k) => process.env[k]).map((k) => [k, process.env[k]])),
  };
  return { dataDir, storePath, prefix, base: `http://127.0.0.1:${port}`, secret, env };
}

/** Starts dist/src/main.js (after `nodeArgs`, e.g. --cpu-prof) on the prepared environment and waits until it is ready (or stops it). */
export async function startBenchService(prepared, nodeArgs = []) {
  const service = startChild([...nodeArgs, join(projectRoot, 'dist', 'src', 'main.js')], prepared.env);
  try {
    await waitForReady(prepared.base, service);
  } catch (error) {
    service.child.kill('SIGTERM');
    await service.exited;
    throw error;
  }
  return service;
}

/**
 * The service as docker-compose deploys it, on the prepared environment: a `worker` process (the
 * `policy-evaluate` consumer and its threads) started first, then an `api` process; waits until the
 * API is ready. `nodeArgs(role)` are each process's arguments before main.js (e.g. --cpu-prof).
 */
export async function startSplitBenchService(prepared, nodeArgs = () => []) {
  // `prepared.main`: another build's main.js (bench/http/pair-cpu.mjs compares two).
  const main = prepared.main ?? join(projectRoot, 'dist', 'src', 'main.js');
  const worker = startChild([...nodeArgs('worker'), main], { ...prepared.env, ROLE: 'worker' });
  const api = startChild([...nodeArgs('api'), main], { ...prepared.env, ROLE: 'api' });
  try {
    await waitForReady(prepared.base, api);
  } catch (error) {
    for (const running of [api, worker]) running.child.kill('SIGTERM');
    await Promise.all([api.exited, worker.exited]);
    throw error;
  }
  return { api, worker };
}

/** Deletes the run's Redis keys and its data directory. */
export async function removeBenchService(prepared) {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`*${prepared.prefix}*`);
  for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
  await redis.quit();
  rmSync(prepared.dataDir, { recursive: true, force: true });
}

/**
 * Prepares a run, changes its environment with `configure(prepared)` (when given), starts the service
 * as docker-compose deploys it, hands `use` the run and its processes, then stops both processes
 * (insisting on a clean exit) and removes the run's data; `nodeArgs` as startSplitBenchService's.
 */
export async function withSplitBenchService(name, { configure, nodeArgs } = {}, use) {
  const service = await prepareBenchService(name);
  await configure?.(service);
  const { api, worker } = await startSplitBenchService(service, nodeArgs);
  try {
    await use({ service, api, worker });
  } finally {
    await stopChild(api);
    await stopChild(worker);
  }
  await removeBenchService(service);
}
