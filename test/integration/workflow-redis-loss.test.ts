// Redis coming back without its data: the jobs that drive workflows (`workflow-run` runs, the
// delayed jobs of `within` time limits) are gone, while the logs in the store say where each
// workflow stands. The built service runs as separate processes (an `api` and a `worker` sweeping
// for stranded workflows every second). Workflows awaiting a signal, with and without a time limit,
// reach their wait; more are started while the queue is paused, so their runs sit in Redis; then
// every key of the deployment's prefix is deleted. The worker lives through it, as it would through
// a Redis restart. Every workflow must still finish: the running ones go on, the time limits fire,
// the signalled ones complete; every log is gapless, without a duplicate, and one event per step.
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../src/config/index.js';
import { createRedisClient, QUEUE_NAMES, queuePrefix } from '../../src/jobs/index.js';
import { openStore, type OpenStoreOptions } from '../../src/store/index.js';
import { describeWithMongo, dropMongoDatabase, REDIS_URL, separateProcesses, uniqueDatabaseName, type StoreEnv } from '../support/index.js';

const MODULE = `Module acme.resumable.

Rule fine given n as Int, produce Bool:
  Return n is at least 0.

Workflow steady given n as Int:
  Step one: fine(n).
  Step two: fine(n).
  Step three: fine(n).

Workflow approval given n as Int:
  Step check: fine(n).
  Step review: Await "approval".
  Step after: fine(n).

Workflow deadline given n as Int:
  Step check: fine(n).
  Step review: Await "approval" within 1 minute.
  Step after: fine(n).
`;

/** Each workflow's whole log once it has finished. */
const EXPECTED = {
  steady: ['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'WORKFLOW_COMPLETED'],
  approval: ['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'SIGNAL_AWAITED', 'SIGNAL_RECEIVED', 'POLICY_EVALUATED', 'WORKFLOW_COMPLETED'],
  // A time-out is the step's answer false, which ends the workflow at once.
  deadline: ['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'SIGNAL_AWAITED', 'SIGNAL_TIMED_OUT', 'WORKFLOW_COMPLETED'],
} as const;
type Kind = keyof typeof EXPECTED;

type Counts = Record<Kind, number>;
const ALL_KINDS: Counts = { steady: 20, approval: 5, deadline: 5 };

interface Event {
  sequence: number;
  eventType: string;
}
interface State {
  status: string;
  finalResult: boolean | null;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function redisLoss(name: string, storeEnv: () => StoreEnv, counts: Counts = ALL_KINDS): void {
  describe(name, () => {
    const deployment = separateProcesses('redis-loss', storeEnv, { WORKFLOW_RESUME_INTERVAL_SECONDS: '1' });
    const { start } = deployment;

    it('finishes every workflow after Redis lost every key: runs go on, time limits fire, no gap, no duplicate', async () => {
      const api = await start('api');
      await start('worker');
      const call = await deployment.callsAs(api, 'redis-loss', 'MEMBER');
      const admin = await deployment.callsAs(api, 'redis-loss', 'ADMIN');
      const startWorkflows = async (kind: Kind) => {
        const ids: string[] = [];
        for (let n = 0; n < counts[kind]; n += 1) {
          const started = await call<{ workflowId: string }>('POST', '/api/v1/workflows', { policyModule: 'acme.resumable', workflow: kind, context: { n } });
          expect(started.status, JSON.stringify(started.body)).toBe(201);
          ids.push(started.body.workflowId);
        }
        return ids;
      };
      /** Polls until every workflow's status passes `done` (a failed expectation inside stops at once). */
      const until = async (ids: readonly string[], done: (state: State) => boolean, rounds: number) => {
        const pending = new Set(ids);
        for (let round = 0; round < rounds && pending.size > 0; round += 1) {
          for (const id of [...pending]) if (done((await call<State>('GET', `/api/v1/workflows/${id}`)).body)) pending.delete(id);
          if (pending.size > 0) await pause(100);
        }
        return [...pending];
      };
      expect((await admin('POST', '/api/v1/policies', { source: MODULE })).status).toBe(201);

      // Waits first: each time limit is then a delayed job in Redis.
      const ids: Record<Kind, string[]> = { approval: await startWorkflows('approval'), deadline: await startWorkflows('deadline'), steady: [] };
      expect(await until([...ids.approval, ...ids.deadline], (s) => s.status === 'WAITING', 600)).toEqual([]);

      // Runs that wait in Redis: the queue is paused, so no worker takes them before they are lost.
      const connection = createRedisClient(REDIS_URL, 'test-redis-loss');
      const queue = new Queue(QUEUE_NAMES.workflowRun, { connection, prefix: queuePrefix(QUEUE_NAMES.workflowRun, deployment.env.REDIS_KEY_PREFIX) });
      await queue.pause();
      ids.steady = await startWorkflows('steady');
      for (const id of ids.steady) expect((await call<Event[]>('GET', `/api/v1/workflows/${id}/events`)).body).toHaveLength(1);
      await queue.close();

      // Redis comes back empty: every key of this deployment is gone (queues, delayed jobs, the pause).
      const keys = await connection.keys(`*${deployment.env.REDIS_KEY_PREFIX}*`);
      expect(keys.length).toBeGreaterThan(0);
      await connection.del(...keys);
      await connection.quit();

      for (const id of ids.approval) {
        expect((await call('POST', `/api/v1/workflows/${id}/signals`, { signal: 'approval', approved: true })).status).toBe(200);
      }
      // The time limits are one minute from the wait's start; these rounds leave it ample room.
      const all = [...ids.steady, ...ids.approval, ...ids.deadline];
      expect(await until(all, (s) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(s.status), 1500)).toEqual([]);

      for (const kind of Object.keys(EXPECTED) as Kind[]) {
        for (const id of ids[kind]) {
          const state = (await call<State>('GET', `/api/v1/workflows/${id}`)).body;
          expect(state).toMatchObject({ status: 'COMPLETED', finalResult: kind !== 'deadline' });
          const events = (await call<Event[]>('GET', `/api/v1/workflows/${id}/events`)).body;
          expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
          expect(events.map((e) => e.eventType), `${kind} ${id}`).toEqual(EXPECTED[kind]);
        }
      }
      // And each is marked finished, so the sweep reads them no more.
      const location: OpenStoreOptions = {
        sqlitePath: join(deployment.dataDir, SQLITE_FILE_NAME),
        ...(deployment.env.MONGODB_URL !== undefined ? { mongodbUrl: deployment.env.MONGODB_URL, mongodbDatabase: deployment.env.MONGODB_DATABASE! } : {}),
      };
      const store = await openStore(location);
      try {
        expect((await store.workflows.listUnfinished(null, 1000)).filter((w) => all.includes(w.workflowId))).toEqual([]);
      } finally {
        await store.close();
      }
    }, 300_000);
  });
}

redisLoss('workflows after Redis lost its data, on SQLite (separate processes)', () => ({ env: {}, dispose: async () => {} }));

describeWithMongo('workflows after Redis lost its data on MongoDB', (url) => {
  redisLoss('workflows after Redis lost its data, on MongoDB (separate processes)', () => {
    const database = uniqueDatabaseName('pe_test_redis_loss');
    return {
      env: { MONGODB_URL: url, MONGODB_DATABASE: database },
      dispose: () => dropMongoDatabase(url, database),
    };
  },
  // The time limits wait a whole minute (the language's unit): their rescheduling is the same code on
  // every store, run above on SQLite; here the store's own part (listing, marking) is what differs.
  { ...ALL_KINDS, deadline: 0 });
});
