// The service as the scale-out benchmark runs it: one `worker` and `apis` `api` processes of the
// built service, each API on its own port, on a store of their own (SQLite in a temp DATA_DIR, or a
// MongoDB database of its own when a URL is given) and the local Redis under a unique key prefix.
// Processes are started and stopped as the soak does (bench/soak/soak-service.mjs).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../dist/src/store/index.js';
import { createTenantService } from '../../dist/src/tenants/index.js';
import { REDIS_URL, TENANT } from '../support/bench-service.mjs';
import { projectRoot, startChild, stopChild, unusedPort, waitForReady } from '../support/child-process.mjs';
import { waitForWorkerMetrics, watchLogLevels } from '../soak/soak-service.mjs';

/** Store (tenant registered), ports and every process's environment; `mongodbUrl` undefined for SQLite. */
export async function prepareScaleService({ mongodbUrl, apis }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'pe-scale-'));
  const prefix = `scale-${randomUUID()}`;
  const mongodbDatabase = mongodbUrl === undefined ? undefined : `scale_${randomUUID().replaceAll('-', '')}`;
  const apiPorts = [];
  for (let i = 0; i < apis; i++) apiPorts.push(await unusedPort());
  const workerMetricsPort = await unusedPort();

  const store = await openStore({ sqlitePath: join(dataDir, 'policy-engine.sqlite'), mongodbUrl, mongodbDatabase });
  const { secret } = (await createTenantService(store.tenants).register(TENANT)).secret;
  await store.close();

  const shared = {
    DATA_DIR: dataDir,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    ...(mongodbUrl === undefined ? {} : { MONGODB_URL: mongodbUrl, MONGODB_DATABASE: mongodbDatabase }),
    HOST: '127.0.0.1',
    JWT_KEYS: `scale:${randomBytes(32).toString('base64url')}`,
    // The limiter still runs on every request; its quota is above what the run spends, so a 429 is a finding.
    RATE_LIMIT_POINTS: '1000000000',
    LOG_LEVEL: 'warn',
  };
  return {
    dataDir,
    prefix,
    secret,
    mongodb: mongodbUrl === undefined ? null : { url: mongodbUrl, database: mongodbDatabase },
    bases: apiPorts.map((port) => `http://127.0.0.1:${port}`),
    workerMetricsUrl: `http://127.0.0.1:${workerMetricsPort}/metrics`,
    env: {
      apis: apiPorts.map((port) => ({ ...shared, PORT: String(port) })),
      worker: { ...shared, METRICS_PORT: String(workerMetricsPort) },
    },
  };
}

/** The worker first (an API needs one to answer), then each API; `[{name, running, logs, metricsUrl}]`. */
export async function startScaleService(prepared) {
  const main = join(projectRoot, 'dist', 'src', 'main.js');
  const processes = [];
  try {
    const worker = startChild([main, '--role', 'worker'], prepared.env.worker);
    processes.push({ name: 'worker', running: worker, logs: watchLogLevels(worker), metricsUrl: prepared.workerMetricsUrl });
    await waitForWorkerMetrics(prepared.workerMetricsUrl, worker);
    // One after the other, each ready before the next starts.
    for (const [i, env] of prepared.env.apis.entries()) {
      const api = startChild([main, '--role', 'api'], env);
      processes.push({ name: `api ${i + 1}`, running: api, logs: watchLogLevels(api), metricsUrl: `${prepared.bases[i]}/metrics` });
      await waitForReady(prepared.bases[i], api);
    }
  } catch (error) {
    await stopScaleService(processes).catch(() => {});
    throw error;
  }
  return processes;
}

/** SIGTERM to the APIs, then the worker; each must exit 0 (a graceful stop that fails is a finding). */
export async function stopScaleService(processes) {
  const failures = [];
  for (const started of [...processes].reverse()) {
    if (started.running.child.exitCode !== null) continue;
    await stopChild(started.running).catch((error) => failures.push(`${started.name}: ${error.message.slice(0, 2000)}`));
  }
  if (failures.length > 0) throw new Error(`graceful stop failed:\n${failures.join('\n')}`);
}
