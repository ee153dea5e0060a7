// The Redis side of resuming workflows, on real Redis: how BullMQ de-duplicates the jobs a sweep
// queues, and how the sweep's turn and its place are shared by the worker processes.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedisClient, QUEUE_NAMES, queuePrefix } from '../../src/jobs/index.js';
import {
  createWorkflowJobQueue,
  startWorkflowResumeSchedule,
  startWorkflowWorker,
  type WorkflowJobQueue,
  type WorkflowResumeSchedule,
  type WorkflowRunner,
} from '../../src/workflows/index.js';
import { connectRedis, REDIS_URL, removeRedisPrefix } from '../support/index.js';

let prefix: string;
beforeEach(() => {
  prefix = `test-${randomUUID()}`;
});
afterEach(async () => {
  await removeRedisPrefix(prefix);
});

describe('workflow-run jobs queued by the resume sweep', () => {
  let queue: WorkflowJobQueue;
  let inspect: Queue;
  let inspectClient: Redis;
  const runs: string[] = [];
  const runner: WorkflowRunner = {
    async advance(_tenantId, workflowId) {
      runs.push(`advance ${workflowId}`);
      return { state: null, more: false };
    },
    async timeOut(_tenantId, workflowId, step) {
      runs.push(`timeOut ${workflowId} ${step}`);
    },
  };

  beforeEach(() => {
    runs.length = 0;
    queue = createWorkflowJobQueue({ connection: REDIS_URL, prefix });
    inspectClient = createRedisClient(REDIS_URL, 'test-inspect');
    inspect = new Queue(QUEUE_NAMES.workflowRun, { connection: inspectClient, prefix: queuePrefix(QUEUE_NAMES.workflowRun, prefix) });
  });
  afterEach(async () => {
    await queue.close();
    await inspect.close();
    await inspectClient.quit();
  });

  /** Completed jobs kept, by name. */
  async function completedByName(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const job of await inspect.getJobs(['completed'], 0, -1)) counts[job.name] = (counts[job.name] ?? 0) + 1;
    return counts;
  }

  /**
   * Runs the queued jobs with a worker until `completed` jobs of `name` are kept and nothing is
   * left to run (each of them puts its workflow in the tenant's ready list, and a `turn` job runs it).
   */
  async function drain(name: string, completed: number): Promise<void> {
    const worker = await startWorkflowWorker({ connection: REDIS_URL, prefix, runner });
    const busy = async () => Object.values(await inspect.getJobCounts('waiting', 'active', 'delayed')).some((n) => n > 0);
    try {
      for (let round = 0; round < 500 && ((await completedByName())[name] ?? 0) < completed; round += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      for (let round = 0; round < 500 && (await busy()); round += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      await worker.close();
    }
    expect((await completedByName())[name]).toBe(completed);
    expect(await inspect.getJobCounts('waiting', 'delayed', 'failed')).toEqual({ waiting: 0, delayed: 0, failed: 0 });
  }

  it('queues one resume per workflow until it has run, and a new one after, although finished jobs are kept', async () => {
    await queue.resume('acme', 'w-1');
    await queue.resume('acme', 'w-1');
    await queue.resume('acme', 'w-2', 'review');
    expect(await inspect.getJobCounts('waiting')).toEqual({ waiting: 2 });
    await drain('resume', 2);
    // The time limit first, then both run in the tenant's turns.
    expect(runs.sort()).toEqual(['advance w-1', 'advance w-2', 'timeOut w-2 review']);

    await queue.resume('acme', 'w-1');
    expect(await inspect.getJobCounts('waiting')).toEqual({ waiting: 1 });
    await drain('resume', 3);
    expect(runs.filter((run) => run === 'advance w-1')).toHaveLength(2);
  });

  it('schedules a time limit once per workflow and step, and never again while its finished job is kept', async () => {
    await queue.scheduleTimeout('acme', 'w-1', 'review', 60_000);
    await queue.scheduleTimeout('acme', 'w-1', 'review', 60_000);
    expect(await inspect.getJobCounts('delayed')).toEqual({ delayed: 1 });
    await inspect.obliterate({ force: true });

    await queue.scheduleTimeout('acme', 'w-1', 'review', 0);
    await drain('timeout', 1);
    // Why the sweep resumes an overdue wait instead: this id is taken for as long as the job is kept.
    await queue.scheduleTimeout('acme', 'w-1', 'review', 0);
    expect(await completedByName()).toEqual({ timeout: 1, turn: 1 });
    expect(await inspect.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 0, delayed: 0 });
    expect(runs).toEqual(['timeOut w-1 review', 'advance w-1']);
  });
});

describe('the workflow resume schedule', () => {
  let redis: Redis;
  const schedules: WorkflowResumeSchedule[] = [];

  beforeEach(async () => {
    redis = await connectRedis();
  });
  afterEach(async () => {
    for (const schedule of schedules.splice(0)) await schedule.stop();
    redis.disconnect();
  });

  const errors: Error[] = [];
  afterEach(() => {
    expect(errors.splice(0)).toEqual([]);
  });

  /** A process's schedule (one sweep at start, the next an hour later) whose sweeps are recorded; each answers `next`. */
  function start(name: string, sweeps: Array<[string, string | null]>, next: string | null) {
    let swept!: () => void;
    const done = new Promise<void>((resolve) => (swept = resolve));
    const schedule = startWorkflowResumeSchedule({
      redis,
      prefix,
      intervalMs: 3_600_000,
      async sweep(after) {
        sweeps.push([name, after]);
        swept();
        return { next };
      },
      onError: (error) => errors.push(error),
    });
    schedules.push(schedule);
    return { schedule, done };
  }

  it('sweeps at start in one process per interval, and the next sweep goes on where the last stopped', async () => {
    const sweeps: Array<[string, string | null]> = [];
    const first = start('first', sweeps, 'w-500');
    await first.done;
    // Stopping waits for the sweep in progress, so its place is stored by then.
    await first.schedule.stop();
    // Another process starting within the interval finds the turn taken.
    await start('second', sweeps, null).schedule.stop();
    expect(sweeps).toEqual([['first', null]]);

    // Once the turn has expired, whichever process takes it starts from the stored place.
    await redis.del(`${prefix}:workflow-resume:turn`);
    const third = start('third', sweeps, null);
    await third.done;
    await third.schedule.stop();
    expect(sweeps).toEqual([
      ['first', null],
      ['third', 'w-500'],
    ]);
    // That sweep reached the end: the next one starts from the first workflow.
    expect(await redis.get(`${prefix}:workflow-resume:cursor`)).toBeNull();
  });

  it('reports a failed sweep and sweeps again at the next interval', async () => {
    const reported: string[] = [];
    let calls = 0;
    let recovered!: () => void;
    const again = new Promise<void>((resolve) => (recovered = resolve));
    schedules.push(
      startWorkflowResumeSchedule({
        redis,
        prefix,
        intervalMs: 20,
        async sweep() {
          calls += 1;
          if (calls === 1) throw new Error('store unreachable');
          recovered();
          return { next: null };
        },
        onError: (error) => reported.push(error.message),
      }),
    );
    await again;
    expect(reported).toEqual(['store unreachable']);
  });
});
