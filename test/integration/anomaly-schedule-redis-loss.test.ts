// Redis coming back without its data takes the `anomaly-detect` job scheduler with it. On real
// Redis, every key of the suite's prefix is deleted while the workers run: the schedule must be
// declared again and detection go on, still once per interval for all workers together.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ANOMALY_DETECT_SCHEDULER_ID,
  createAnomalyDetector,
  createAnomalySettings,
  createAnomalyVerifier,
  DEFAULT_DETECTION_SETTINGS,
  startAnomalyDetectSchedule,
  startAnomalyWorkers,
  type AnomalyDetectJobData,
  type AnomalyWorkers,
} from '../../src/anomalies/index.js';
import { createAuditTrail } from '../../src/audit/index.js';
import { SQLITE_FILE_NAME } from '../../src/config/index.js';
import { createRedisClient, QUEUE_NAMES, queuePrefix } from '../../src/jobs/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { REDIS_URL, removeRedisPrefix } from '../support/index.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The run time BullMQ puts in a scheduled job's id. */
function runTimeOf(jobId: string): number {
  return Number(/^repeat:anomaly-detect:(\d+)$/.exec(jobId)?.[1]);
}

let prefix: string;
let inspectClient: Redis;
let inspect: Queue<AnomalyDetectJobData>;
beforeEach(() => {
  prefix = `test-${randomUUID()}`;
  inspectClient = createRedisClient(REDIS_URL, 'test-inspect');
  inspect = new Queue(QUEUE_NAMES.anomalyDetect, { connection: inspectClient, prefix: queuePrefix(QUEUE_NAMES.anomalyDetect, prefix) });
});
afterEach(async () => {
  await inspect.close();
  await inspectClient.quit();
  await removeRedisPrefix(prefix);
});

describe('the anomaly-detect schedule after Redis lost its data', () => {
  it('is declared again by the running workers, and detection goes on once per interval', async () => {
    const EVERY_MS = 300;
    const dataDir = await mkdtemp(join(tmpdir(), 'pe-anomaly-schedule-'));
    const store = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
    const trail = createAuditTrail(store.auditLinks);
    const settings = createAnomalySettings({ repository: store.anomalySettings, defaults: DEFAULT_DETECTION_SETTINGS, audit: trail.recorder });
    const deps = { store, settings, audit: trail.recorder, builtinModules: new Set<string>() };
    const workers: AnomalyWorkers[] = [];
    const completed: string[] = [];
    let waiting: { count: number; resolve: () => void } | undefined;
    const completions = (count: number) =>
      new Promise<void>((resolve) => {
        if (completed.length >= count) resolve();
        else waiting = { count, resolve };
      });
    try {
      for (let worker = 0; worker < 2; worker += 1) {
        const started = await startAnomalyWorkers({
          connection: REDIS_URL,
          prefix,
          detector: createAnomalyDetector(deps),
          verifier: createAnomalyVerifier(deps),
          detectEveryMs: EVERY_MS,
        });
        started.detectWorker.on('completed', (job) => {
          completed.push(job.id!);
          if (waiting && completed.length >= waiting.count) waiting.resolve();
        });
        workers.push(started);
      }
      await completions(1);

      // Paused workers finish their job first, so no run from before the loss completes after it.
      await Promise.all(workers.map((started) => started.detectWorker.pause()));
      const beforeLoss = completed.splice(0);
      await removeRedisPrefix(prefix);
      await Promise.all(workers.map((started) => started.detectWorker.resume()));

      await completions(3);
      const afterLoss = completed.slice(0, 3);
      expect(afterLoss.filter((id) => beforeLoss.includes(id))).toEqual([]);
      expect(new Set(afterLoss).size).toBe(afterLoss.length);
      const times = afterLoss.map(runTimeOf).sort((a, b) => a - b);
      expect(times.every(Number.isSafeInteger), afterLoss.join(', ')).toBe(true);
      for (let i = 1; i < times.length; i += 1) {
        const gap = times[i]! - times[i - 1]!;
        expect(gap % EVERY_MS, `gap ${gap}`).toBe(0);
        expect(gap).toBeGreaterThanOrEqual(EVERY_MS);
      }
      expect(await inspect.getJobScheduler(ANOMALY_DETECT_SCHEDULER_ID)).toMatchObject({ every: EVERY_MS, name: 'detect-all' });
    } finally {
      for (const started of workers) await started.close();
      await trail.close();
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 30_000);

  it('is declared again, with a run queued at once, when the connection is ready again', async () => {
    // An interval the test never reaches: only the reconnection can declare the schedule again.
    const EVERY_MS = 3_600_000;
    const client = createRedisClient(REDIS_URL, 'test-anomaly-detect-schedule');
    const queue = new Queue<AnomalyDetectJobData>(QUEUE_NAMES.anomalyDetect, { connection: client, prefix: queuePrefix(QUEUE_NAMES.anomalyDetect, prefix) });
    const errors: Error[] = [];
    const schedule = await startAnomalyDetectSchedule({ queue, redis: client, everyMs: EVERY_MS, onError: (error) => errors.push(error) });
    try {
      expect(await inspect.getJobScheduler(ANOMALY_DETECT_SCHEDULER_ID)).toMatchObject({ every: EVERY_MS });
      await removeRedisPrefix(prefix);
      expect(await inspect.getJobScheduler(ANOMALY_DETECT_SCHEDULER_ID)).toBeUndefined();

      client.disconnect(true); // as when Redis restarts: the client reconnects by itself
      while ((await inspect.getJobScheduler(ANOMALY_DETECT_SCHEDULER_ID)) === undefined) await pause(20);
      const queued = await inspect.getJobs(['wait']);
      expect(queued.map((job) => Number.isSafeInteger(runTimeOf(job.id!)))).toEqual([true]);
      expect(errors).toEqual([]);
    } finally {
      await schedule.stop();
      await queue.close();
      await client.quit();
    }
  }, 30_000);
});
