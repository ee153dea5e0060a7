// The anomaly jobs on real Redis: the `anomaly-detect` job scheduler runs once per interval however
// many worker processes declare it, and `npm run anomalies -- detect` runs detection on demand
// through a real worker process (dist/src/main.js, role worker; `npm test` builds first).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAnomaliesCli } from '../../scripts/anomalies.js';
import type { CliIo } from '../../scripts/cli-io.js';
import {
  createAnomalyDetector,
  createAnomalySettings,
  createAnomalyVerifier,
  DEFAULT_DETECTION_SETTINGS,
  startAnomalyWorkers,
  type AnomalyWorkers,
  type DetectionRun,
} from '../../src/anomalies/index.js';
import { createAuditTrail } from '../../src/audit/index.js';
import { SQLITE_FILE_NAME } from '../../src/config/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/index.js';
import { assertServiceBuilt, MAIN, REDIS_URL, removeRedisPrefix, runService, type ServiceProcess } from '../support/index.js';

const SCRIPT = join(dirname(MAIN), '..', 'scripts', 'anomalies.js');

function io(env: Record<string, string>): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { env, stdout, stderr, out: (line) => stdout.push(line), err: (line) => stderr.push(line) };
}

let dataDir: string;
let prefix: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pe-anomaly-jobs-'));
  prefix = `test-${randomUUID()}`;
});
afterEach(async () => {
  await removeRedisPrefix(prefix);
  await rm(dataDir, { recursive: true, force: true });
});

describe('the anomaly-detect schedule', () => {
  it('produces one job per interval that one of three workers takes', async () => {
    const EVERY_MS = 300;
    const store = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
    const trail = createAuditTrail(store.auditLinks);
    const settings = createAnomalySettings({ repository: store.anomalySettings, defaults: DEFAULT_DETECTION_SETTINGS, audit: trail.recorder });
    const deps = { store, settings, audit: trail.recorder, builtinModules: new Set<string>() };
    const taken: Array<{ worker: number; jobId: string }> = [];
    const workers: AnomalyWorkers[] = [];
    try {
      for (let worker = 0; worker < 3; worker += 1) {
        const started = await startAnomalyWorkers({
          connection: REDIS_URL,
          prefix,
          detector: createAnomalyDetector(deps),
          verifier: createAnomalyVerifier(deps),
          detectEveryMs: EVERY_MS,
        });
        started.detectWorker.on('completed', (job) => taken.push({ worker, jobId: job.id! }));
        workers.push(started);
      }
      await new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`only ${taken.length} scheduled runs in 20 s`)), 20_000);
        const poll = setInterval(() => {
          if (taken.length < 10) return;
          clearInterval(poll);
          clearTimeout(deadline);
          resolve();
        }, 50);
      });
    } finally {
      for (const worker of workers) await worker.close();
      await trail.close();
      await store.close();
    }
    const ids = taken.map((t) => t.jobId);
    expect(new Set(ids).size).toBe(ids.length);
    const times = ids.map((id) => Number(/^repeat:anomaly-detect:(\d+)$/.exec(id)?.[1])).sort((a, b) => a - b);
    expect(times.every(Number.isSafeInteger)).toBe(true);
    for (let i = 1; i < times.length; i += 1) {
      const gap = times[i]! - times[i - 1]!;
      expect(gap % EVERY_MS, `gap ${gap}`).toBe(0);
      expect(gap).toBeGreaterThanOrEqual(EVERY_MS);
    }
  }, 30_000);
});

describe('npm run anomalies -- detect', () => {
  let service: ServiceProcess | undefined;
  let store: SqliteStore;

  beforeAll(assertServiceBuilt);

  afterEach(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    service = undefined;
  });

  it('detects one tenant on demand through a worker process and prints what it found', async () => {
    store = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
    await store.rollups.add('acme', [
      { policyModule: 'acme.claims', policyFunction: 'assess', version: 0, minute, count: 100, failures: 40, timeSum: 50, timeSquares: 30, max: 2 },
    ]);
    await store.close();
    const env = { DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: prefix, ENGINE_THREADS: '1', LOG_LEVEL: 'info' };
    service = runService(['--role', 'worker'], env);
    await service.waitForLog('anomaly detection scheduled');

    const first = io(env);
    expect(await runAnomaliesCli(['detect', '--tenant', 'acme', '--json'], first), first.stderr.join('\n')).toBe(0);
    const run = JSON.parse(first.stdout[0]!) as DetectionRun;
    expect(run.tenants).toHaveLength(1);
    expect(run.tenants[0]).toMatchObject({ tenantId: 'acme', versions: 1, assessed: 1, buckets: 1, continueAfter: null });
    expect(run.tenants[0]!.opened + run.tenants[0]!.updated + run.tenants[0]!.unchanged).toBe(1);

    // The built script as a process: it prints, closes its Redis connections and exits by itself.
    const script = spawnSync(process.execPath, [SCRIPT, 'detect', '--tenant', 'acme'], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });
    expect(script.status, script.stderr).toBe(0);
    // The same numbers as the run before: the anomaly is found again and left as stored.
    expect(script.stdout).toMatch(/tenant `acme`: window .* 1 rollup buckets, 1 of 1 versions assessed\nopened 0, updated 0, unchanged 1, suppressed 0, resolved 0 \(/);

    const check = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
    try {
      const page = await check.anomalies.list('acme', { detectedFrom: new Date(0).toISOString(), offset: 0, limit: 10 });
      expect(page.items.map((a) => [a.type, a.policyModule, a.version, a.status])).toEqual([['HIGH_FAILURE_RATE', 'acme.claims', 0, 'OPEN']]);
    } finally {
      await check.close();
    }
  }, 60_000);

  it('exits 1 naming the missing worker when none finishes the job in time, and refuses bad arguments', async () => {
    const env = { DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: prefix };
    const alone = io(env);
    expect(await runAnomaliesCli(['detect', '--tenant', 'acme', '--timeout', '1'], alone)).toBe(1);
    expect(alone.stderr.join('\n')).toContain('no worker finished the detection within 1 s');
    const bad = io(env);
    expect(await runAnomaliesCli(['detect', '--tenant', 'no spaces'], bad)).not.toBe(0);
    expect(bad.stderr.join('\n')).toContain('1-64 letters');
  }, 30_000);
});
