// A workflow's event stream across processes: two API processes and a worker, as separate processes
// on one store and one Redis. The stream is read from API process 1 while the events are appended by
// the worker and through API process 2; API 1 is killed (SIGKILL) mid-stream, events are appended
// while the client is away, and the client reconnects to API 2 with Last-Event-ID: what it saw is
// exactly the workflow's log, no gap and no repeat. Then a graceful stop of API 2 with a stream
// open: the stream ends and the process exits, however long SHUTDOWN_GRACE_SECONDS is. On SQLite and
// on MongoDB.
import { describe, expect, it } from 'vitest';
import { createJwtKeyRing, createTokenSigner, parseJwtKeysSpec } from '../../src/auth/index.js';
import { describeWithMongo, dropMongoDatabase, openEventStream, separateProcesses, uniqueDatabaseName, type ServiceProcess, type StoreEnv } from '../support/index.js';

const MODULE = `Module acme.relay.

Rule approve given amount as Int, produce Bool:
  Return amount is at least 10.

Workflow relay given amount as Int:
  Step check: approve(amount).
  Step first: Await "first" within 48 hours.
  Step second: Await "second" within 48 hours.
  Step third: Await "third" within 48 hours.
`;

interface WorkflowEvent {
  sequence: number;
  eventType: string;
  payload: Record<string, unknown>;
}

/** Registers the scenario in the enclosing describe, its processes on the store `storeEnv` names. */
function streamAcrossProcesses(storeEnv: () => StoreEnv): void {
  // A graceful stop waiting on its streams would outlast the test: it must not.
  const deployment = separateProcesses('fault-streams', storeEnv, { SHUTDOWN_GRACE_SECONDS: '600' });

  it('resumes on another API process after a SIGKILL with nothing lost or repeated, and ends on a graceful stop', async () => {
    await deployment.start('worker');
    const api1 = await deployment.start('api');
    const api2 = await deployment.start('api');
    const baseOf = async (api: ServiceProcess) => `http://127.0.0.1:${(await api.waitForLog('api listening')).port as number}`;
    const [base1, base2] = [await baseOf(api1), await baseOf(api2)];
    const call2 = await deployment.callsAs(api2, 'member', 'MEMBER');
    const admin2 = await deployment.callsAs(api2, 'admin', 'ADMIN');
    const signer = createTokenSigner(createJwtKeyRing(parseJwtKeysSpec(deployment.env.JWT_KEYS!), 'JWT_KEYS'));
    const headers = { authorization: `Bearer ${await signer.sign({ subject: 'watcher', tenantId: 'acme', roles: ['MEMBER'], ttlSeconds: 3600 })}`, 'x-tenant-id': 'acme' };

    expect((await admin2('POST', '/api/v1/policies', { source: MODULE })).status).toBe(201);
    const started = await call2<{ workflowId: string }>('POST', '/api/v1/workflows', { policyModule: 'acme.relay', workflow: 'relay', context: { amount: 50 } });
    expect(started.status).toBe(201);
    const { workflowId } = started.body;
    const path = `/api/v1/workflows/${workflowId}/events/stream`;
    const signal = async (name: string) => expect((await call2('POST', `/api/v1/workflows/${workflowId}/signals`, { signal: name, approved: true })).status).toBe(200);
    const awaited = (name: string) => (event: WorkflowEvent) => event.eventType === 'SIGNAL_AWAITED' && event.payload.signal === name;

    const onApi1 = await openEventStream(`${base1}${path}`, headers);
    expect(onApi1.status).toBe(200);
    const seen = await onApi1.eventsUntil<WorkflowEvent>(awaited('first'));
    // Appended through API 2 and by the worker; heard by API 1 over Redis.
    await signal('first');
    seen.push(...(await onApi1.eventsUntil<WorkflowEvent>(awaited('second'))));
    api1.child.kill('SIGKILL');
    await api1.exited;
    // The connection broke: whatever was in flight is lost to this reader, not to the log.
    seen.push(...(await onApi1.eventsToEnd<WorkflowEvent>()));
    await signal('second');

    const lastId = seen.at(-1)!.id!;
    const onApi2 = await openEventStream(`${base2}${path}`, { ...headers, 'last-event-id': lastId });
    expect(onApi2.status).toBe(200);
    seen.push(...(await onApi2.eventsUntil<WorkflowEvent>(awaited('third'))));
    await signal('third');
    seen.push(...(await onApi2.eventsToEnd<WorkflowEvent>()));

    const log = (await call2<WorkflowEvent[]>('GET', `/api/v1/workflows/${workflowId}/events`)).body;
    expect(log.at(-1)!.eventType).toBe('WORKFLOW_COMPLETED');
    expect(seen.map((event) => event.data)).toEqual(log);
    expect(seen.map((event) => event.id)).toEqual(log.map((event) => String(event.sequence)));

    // A graceful stop with a stream open (this workflow waits for ever): the stream ends, the process exits.
    const waiting = await call2<{ workflowId: string }>('POST', '/api/v1/workflows', { policyModule: 'acme.relay', workflow: 'relay', context: { amount: 50 } });
    const open = await openEventStream(`${base2}/api/v1/workflows/${waiting.body.workflowId}/events/stream`, headers);
    await open.eventsUntil<WorkflowEvent>(awaited('first'));
    api2.child.kill('SIGTERM');
    expect(await open.eventsToEnd()).toEqual([]);
    expect(await api2.exited).toBe(0);
    expect(api2.lines.some((line) => line.msg === 'stopped')).toBe(true);
  }, 120_000);
}

describe('a workflow stream across API processes (SQLite)', () => {
  streamAcrossProcesses(() => ({ env: {}, dispose: async () => {} }));
});

describeWithMongo('a workflow stream across API processes (MongoDB)', (url) => {
  streamAcrossProcesses(() => {
    const database = uniqueDatabaseName('fault_streams');
    return { env: { MONGODB_URL: url, MONGODB_DATABASE: database }, dispose: () => dropMongoDatabase(url, database) };
  });
});
