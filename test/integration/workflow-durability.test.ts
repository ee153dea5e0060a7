// Durability: workflows survive their worker being killed. The built service runs as separate
// processes (dist/src/main.js: one `api` and `worker`s), 100 workflows are started while no worker
// runs, and a worker is killed with SIGKILL as soon as they move, then a second one shortly after. BullMQ hands the dead worker's jobs to the other
// (stalled-job recovery after WORKFLOW_JOB_LOCK_SECONDS); each retry replays the log and goes on.
// Every workflow must complete, with one event per step and no gap in its sequence, on both stores.
import { describe, expect, it } from 'vitest';
import { describeWithMongo, dropMongoDatabase, separateProcesses, uniqueDatabaseName, type ServiceProcess, type StoreEnv } from '../support/index.js';

const MODULE = `Module acme.durable.

Rule busy given n as Int, produce Bool:
  Let total be 0.
  For each a in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]:
    For each b in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]:
      Let total be total plus a times b plus n.
  Return total is greater than 0.

Workflow fourSteps given n as Int:
  Step one: busy(n).
  Step two: busy(n).
  Step three: busy(n).
  Step four: busy(n).
`;

const WORKFLOWS = 100;

interface Event {
  sequence: number;
  eventType: string;
}

function durability(name: string, storeEnv: () => Promise<StoreEnv>): void {
  describe(name, () => {
    const deployment = separateProcesses('durable', storeEnv, { WORKFLOW_JOB_LOCK_SECONDS: '2' });
    const { start } = deployment;
    const kill = async (running: ServiceProcess) => {
      running.child.kill('SIGKILL');
      await running.exited;
    };

    it('completes 100 workflows while a worker is killed twice: no gap, no duplicate, one event per step', async () => {
      const api = await start('api');
      // A worker compiles the deploy; it then stops, so that the workflows wait in the queue and
      // the first victim is surely killed in the middle of them, however fast the machine is.
      const compiler = await start('worker');
      const call = await deployment.callsAs(api, 'durability', 'MEMBER');
      const admin = await deployment.callsAs(api, 'durability', 'ADMIN');
      expect((await admin('POST', '/api/v1/policies', { source: MODULE })).status).toBe(201);
      // The first start compiles the workflow (the API keeps the definition); the others need no worker.
      const first = await call<{ workflowId: string }>('POST', '/api/v1/workflows', { policyModule: 'acme.durable', workflow: 'fourSteps', context: { n: 0 } });
      expect(first.status).toBe(201);
      compiler.child.kill('SIGTERM');
      expect(await compiler.exited).toBe(0);

      const ids: string[] = [first.body.workflowId];
      for (let n = 1; n < WORKFLOWS; n += 1) {
        const started = await call<{ workflowId: string }>('POST', '/api/v1/workflows', { policyModule: 'acme.durable', workflow: 'fourSteps', context: { n } });
        expect(started.status).toBe(201);
        ids.push(started.body.workflowId);
      }
      // The victim starts alone and is killed as soon as the workflows move (they all run at once,
      // so they are in flight then); the survivor starts after it, then a second victim.
      let victim = await start('worker');
      for (let round = 0; round < 600; round += 1) {
        const events = (await call<Event[]>('GET', `/api/v1/workflows/${ids[1]}/events`)).body;
        if (events.length > 1) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const last = await call<{ status: string }>('GET', `/api/v1/workflows/${ids.at(-1)}`);
      expect(last.body.status, 'the workflows must still be running when the worker is killed').toBe('RUNNING');
      await kill(victim);
      await start('worker');
      victim = await start('worker');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await kill(victim);
      await start('worker');

      const pending = new Set(ids);
      for (let round = 0; round < 1200 && pending.size > 0; round += 1) {
        for (const id of [...pending]) {
          const state = await call<{ status: string; finalResult: boolean | null }>('GET', `/api/v1/workflows/${id}`);
          if (state.body.status === 'COMPLETED') {
            expect(state.body.finalResult).toBe(true);
            pending.delete(id);
          } else {
            expect(['RUNNING', 'WAITING']).toContain(state.body.status);
          }
        }
        if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(pending.size).toBe(0);
      for (const id of ids) {
        const events = (await call<Event[]>('GET', `/api/v1/workflows/${id}/events`)).body;
        expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
        expect(events.map((e) => e.eventType)).toEqual(['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'WORKFLOW_COMPLETED']);
      }
    }, 240_000);
  });
}

durability('workflow durability on SQLite (separate processes)', async () => ({ env: {}, dispose: async () => {} }));

describeWithMongo('workflow durability on MongoDB', (url) => {
  durability('workflow durability on MongoDB (separate processes)', async () => {
    const database = uniqueDatabaseName('pe_test_durable');
    return {
      env: { MONGODB_URL: url, MONGODB_DATABASE: database },
      dispose: () => dropMongoDatabase(url, database),
    };
  });
});
