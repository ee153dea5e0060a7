// The service as the soak runs it: one `api` and one `worker` process of the built service (as a
// deployment separates them), on a temp DATA_DIR with the embedded SQLite store or, when MONGODB_URL
// is set, on a MongoDB database of their own; the local Redis under a unique key prefix. The
// scheduled anomaly detection runs every DETECT_INTERVAL_SECONDS so that many runs fall in the soak.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { openStore } from '../../dist/src/store/index.js';
import { createTenantService } from '../../dist/src/tenants/index.js';
import { REDIS_URL, TENANT } from '../support/bench-service.mjs';
import { projectRoot, startChild, stopChild, unusedPort, waitForReady } from '../support/child-process.mjs';

export const DETECT_INTERVAL_SECONDS = 10;

/** Data directory (or MongoDB database) with the tenant registered, ports and both processes' environments. */
export async function prepareSoakService({ tokenLifetimeSeconds }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'pe-soak-'));
  const prefix = `soak-${randomUUID()}`;
  const mongodbUrl = process.env.MONGODB_URL || undefined;
  const mongodbDatabase = mongodbUrl === undefined ? undefined : `soak_${randomUUID().replaceAll('-', '')}`;
  const [apiPort, workerMetricsPort] = [await unusedPort(), await unusedPort()];

  const store = await openStore({ sqlitePath: join(dataDir, 'policy-engine.sqlite'), mongodbUrl, mongodbDatabase });
  const { secret } = (await createTenantService(store.tenants).register(TENANT)).secret;
  await store.close();

  const shared = {
    DATA_DIR: dataDir,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    ...(mongodbUrl === undefined ? {} : { MONGODB_URL: mongodbUrl, MONGODB_DATABASE: mongodbDatabase }),
    HOST: '127.0.0.1',
    JWT_KEYS: `soak:${randomBytes(32).toString('base64url')}`,
    // The tokens of the load generator live as long as the run.
    JWT_MAX_LIFETIME_SECONDS: String(Math.max(86_400, tokenLifetimeSeconds)),
    // The limiter still runs on every request; its quota is above what the run spends, so a 429 is a finding.
    RATE_LIMIT_POINTS: '1000000000',
    ANOMALY_DETECT_INTERVAL_SECONDS: String(DETECT_INTERVAL_SECONDS),
    // Warnings and errors only: each is counted and reported, and an info line per request would load the pipe.
    LOG_LEVEL: 'warn',
  };
  return {
    dataDir,
    prefix,
    secret,
    storeName: mongodbUrl === undefined ? 'SQLite in a temp DATA_DIR' : `MongoDB database ${mongodbDatabase}`,
    mongodb: mongodbUrl === undefined ? null : { url: mongodbUrl, database: mongodbDatabase },
    base: `http://127.0.0.1:${apiPort}`,
    workerMetricsUrl: `http://127.0.0.1:${workerMetricsPort}/metrics`,
    env: {
      api: { ...shared, PORT: String(apiPort) },
      worker: { ...shared, METRICS_PORT: String(workerMetricsPort) },
    },
  };
}

/** Counts the JSON log lines of a process by level (pino: 40 warn, 50 error, 60 fatal) and keeps the first few. */
export function watchLogLevels(running) {
  const levels = { warn: 0, error: 0, first: [] };
  let partial = '';
  running.child.stdout.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      let level;
      try {
        level = JSON.parse(line).level;
      } catch {
        continue;
      }
      if (level >= 50) levels.error++;
      else if (level >= 40) levels.warn++;
      else continue;
      if (levels.first.length < 5) levels.first.push(line.slice(0, 400));
    }
  });
  return levels;
}

export async function waitForWorkerMetrics(url, running) {
  for (let i = 0; i < 300; i++) {
    if (running.child.exitCode !== null) throw new Error(`worker exited during start-up:\n${running.output()}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`worker did not serve its metrics:\n${running.output()}`);
}

/** The worker first (the API needs one to answer), then the API; each as `node dist/src/main.js --role …`. */
export async function startSoakService(prepared) {
  const main = join(projectRoot, 'dist', 'src', 'main.js');
  const worker = startChild([main, '--role', 'worker'], prepared.env.worker);
  const processes = { worker: { running: worker, logs: watchLogLevels(worker), metricsUrl: prepared.workerMetricsUrl } };
  try {
    await waitForWorkerMetrics(prepared.workerMetricsUrl, worker);
    const api = startChild([main, '--role', 'api'], prepared.env.api);
    processes.api = { running: api, logs: watchLogLevels(api), metricsUrl: `${prepared.base}/metrics` };
    await waitForReady(prepared.base, api);
  } catch (error) {
    await stopSoakService(processes).catch(() => {});
    throw error;
  }
  return processes;
}

/** SIGTERM to the API, then the worker; each must exit 0 (a graceful stop that fails is a finding). */
export async function stopSoakService(processes) {
  const failures = [];
  for (const name of ['api', 'worker']) {
    const started = processes[name];
    if (started === undefined || started.running.child.exitCode !== null) continue;
    await stopChild(started.running).catch((error) => failures.push(`${name}: ${error.message.slice(0, 2000)}`));
  }
  if (failures.length > 0) throw new Error(`graceful stop failed:\n${failures.join('\n')}`);
}

/** What of the run is left in Redis, by kind of key (nonces, rate limit, each queue's job keys). */
export async function countRedisKeys(prepared) {
  const redis = new Redis(REDIS_URL);
  const kinds = new Map();
  try {
    // SCAN, not KEYS: the Redis is shared and KEYS would block it for every other user.
    const stream = redis.scanStream({ match: `*${prepared.prefix}*`, count: 1000 });
    for await (const keys of stream) {
      for (const key of keys) {
        const kind = keyKind(key, prepared.prefix);
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
    }
  } finally {
    await redis.quit();
  }
  return kinds;
}

// The keys BullMQ keeps per queue whatever its number of jobs; any other key of a queue belongs to a job.
const QUEUE_STRUCTURES = new Set(['id', 'meta', 'events', 'stalled-check', 'stalled', 'marker', 'wait', 'paused', 'active', 'completed', 'failed', 'delayed', 'prioritized', 'pc', 'repeat', 'limiter', 'de', 'waiting-children']);

function keyKind(key, prefix) {
  if (key.startsWith(`${prefix}:nonce:`)) return 'request nonces';
  if (key.startsWith(`${prefix}:rate-limit`)) return 'rate limit';
  const queueKey = /^\{[^}]*\}:([^:]+):([^:]+)/.exec(key);
  if (queueKey === null) return 'other';
  // A scheduler's jobs are `repeat:<scheduler>:<time>`; `repeat` and `repeat:<scheduler>` are the schedule.
  const isJob = !QUEUE_STRUCTURES.has(queueKey[2]) || /:repeat:[^:]+:\d+(:|$)/.test(key);
  return `${queueKey[1]} queue: ${isJob ? 'job keys' : 'its lists and sets'}`;
}

/** Deletes the run's Redis keys, its data directory and its MongoDB database. */
export async function removeSoakService(prepared) {
  const redis = new Redis(REDIS_URL);
  try {
    const stream = redis.scanStream({ match: `*${prepared.prefix}*`, count: 1000 });
    for await (const keys of stream) if (keys.length > 0) await redis.unlink(...keys);
  } finally {
    await redis.quit();
  }
  rmSync(prepared.dataDir, { recursive: true, force: true });
  if (prepared.mongodb !== null) {
    const client = new MongoClient(prepared.mongodb.url);
    try {
      await client.db(prepared.mongodb.database).dropDatabase();
    } finally {
      await client.close();
    }
  }
}
