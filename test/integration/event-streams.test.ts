// The Server-Sent Event streams against the built service (role `all`, SQLite and MongoDB, Redis):
// a workflow's events as they are appended, ending after the final one, resumed from fromSeq or
// Last-Event-ID; the tenant's audit records as they are linked, never another tenant's; the refusals (as the error
// envelope, before any stream) and the per-tenant and per-process bounds. The heartbeat, with a
// short interval, on an app of the suite's own.
import { mkdtemp, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenStreams, createStreamRoutes } from '../../src/api/index.js';
import { createJwtKeyRing, createTokenSigner, parseJwtKeysSpec, type Role } from '../../src/auth/index.js';
import { appendNoticeChannel, createAppendListeners, createRedisClient, type AppendListeners } from '../../src/jobs/index.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import {
  buildChain,
  connectRedis,
  createTestApp,
  describeWithMongo,
  dropMongoDatabase,
  linkChain,
  listen,
  newKeyRing,
  openEventStream,
  REDIS_URL,
  removeRedisPrefix,
  separateProcesses,
  uniqueDatabaseName,
  type HttpListener,
  type ServiceProcess,
  type StoreEnv,
} from '../support/index.js';

const MODULE = `Module acme.review.

Rule approve given amount as Int, produce Bool:
  Return amount is at least 10.

Workflow review given amount as Int:
  Step check: approve(amount).
  Step decision: Await "approval" within 48 hours.
`;

const FINAL = ['WORKFLOW_COMPLETED', 'WORKFLOW_FAILED', 'WORKFLOW_CANCELLED'];

interface WorkflowEvent {
  sequence: number;
  workflowId: string;
  eventType: string;
  payload: Record<string, unknown>;
  occurredAt: string;
}

interface AuditRecord {
  id: string;
  seq: number;
  eventType: string;
  actorId: string;
}

/** Registers the suite in the enclosing describe, the service on the store `storeEnv` names. */
function streamsOfTheService(storeEnv: () => StoreEnv): void {
  const deployment = separateProcesses('streams', storeEnv, { STREAM_MAX_PER_TENANT: '3', STREAM_MAX_PER_PROCESS: '8' });
  let service: ServiceProcess;
  let base: string;
  let tokenOf: (tenantId: string, role: Role) => Promise<string>;

  const headersOf = async (tenantId: string, role: Role, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${await tokenOf(tenantId, role)}`,
    'x-tenant-id': tenantId,
    ...extra,
  });
  const call = async <T>(tenantId: string, role: Role, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...(await headersOf(tenantId, role)), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const stream = async (tenantId: string, role: Role, path: string, extra: Record<string, string> = {}) => openEventStream(`${base}${path}`, await headersOf(tenantId, role, extra));
  const startWorkflow = async (tenantId: string) => {
    const started = await call<{ workflowId: string }>(tenantId, 'MEMBER', 'POST', '/api/v1/workflows', { policyModule: 'acme.review', workflow: 'review', context: { amount: 50 } });
    expect(started.status).toBe(201);
    return started.body.workflowId;
  };
  const log = async (tenantId: string, workflowId: string) => (await call<WorkflowEvent[]>(tenantId, 'MEMBER', 'GET', `/api/v1/workflows/${workflowId}/events`)).body;
  const signal = async (tenantId: string, workflowId: string) =>
    expect((await call(tenantId, 'MEMBER', 'POST', `/api/v1/workflows/${workflowId}/signals`, { signal: 'approval', approved: true })).status).toBe(200);
  const evaluate = (tenantId: string, x: number) =>
    call(tenantId, 'MEMBER', 'POST', '/api/v1/policies/evaluate', { policyModule: 'acme.review', policyFunction: 'approve', context: { amount: x } });

  beforeAll(async () => {
    service = await deployment.start('all');
    base = `http://127.0.0.1:${(await service.waitForLog('api listening')).port as number}`;
    const signer = createTokenSigner(createJwtKeyRing(parseJwtKeysSpec(deployment.env.JWT_KEYS!), 'JWT_KEYS'));
    tokenOf = (tenantId, role) => signer.sign({ subject: `${role.toLowerCase()}-of-${tenantId}`, tenantId, roles: [role], ttlSeconds: 3600 });
    for (const tenantId of ['acme', 'bystander']) {
      expect((await call(tenantId, 'ADMIN', 'POST', '/api/v1/policies', { source: MODULE })).status).toBe(201);
    }
  }, 60_000);

  it('delivers a workflow’s events in order as they are appended, and ends after the final one', async () => {
    const workflowId = await startWorkflow('acme');
    const events = await stream('acme', 'MEMBER', `/api/v1/workflows/${workflowId}/events/stream`);
    expect([events.status, events.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    expect(events.headers.get('x-accel-buffering')).toBe('no');
    const waiting = await events.eventsUntil<WorkflowEvent>((event) => event.eventType === 'SIGNAL_AWAITED');
    await signal('acme', workflowId);
    const rest = await events.eventsToEnd<WorkflowEvent>();
    // The server closed the stream after the final event: nothing more comes.
    expect(await events.next()).toBeNull();
    const seen = [...waiting, ...rest];
    const stored = await log('acme', workflowId);
    expect(seen.map((event) => event.data)).toEqual(stored);
    expect(seen.map((event) => event.id)).toEqual(stored.map((event) => String(event.sequence)));
    expect(FINAL).toContain(stored.at(-1)!.eventType);
    expect(stored.map((event) => event.eventType)).toContain('SIGNAL_RECEIVED');
  });

  it('resumes from fromSeq, and from Last-Event-ID, which wins over fromSeq', async () => {
    const workflowId = await startWorkflow('acme');
    const first = await stream('acme', 'MEMBER', `/api/v1/workflows/${workflowId}/events/stream`);
    await first.eventsUntil<WorkflowEvent>((event) => event.eventType === 'SIGNAL_AWAITED');
    first.close();
    await signal('acme', workflowId);
    const ended = await stream('acme', 'MEMBER', `/api/v1/workflows/${workflowId}/events/stream`);
    await ended.eventsToEnd();
    const stored = await log('acme', workflowId);

    const fromThree = await (await stream('acme', 'MEMBER', `/api/v1/workflows/${workflowId}/events/stream?fromSeq=3`)).eventsToEnd<WorkflowEvent>();
    expect(fromThree.map((event) => event.data)).toEqual(stored.filter((event) => event.sequence >= 3));
    const afterTwo = await (await stream('acme', 'MEMBER', `/api/v1/workflows/${workflowId}/events/stream?fromSeq=1`, { 'last-event-id': '2' })).eventsToEnd<WorkflowEvent>();
    expect(afterTwo.map((event) => event.data)).toEqual(stored.filter((event) => event.sequence > 2));
    // After the final event there is nothing left: the stream ends at once.
    const afterLast = await stream('acme', 'MEMBER', `/api/v1/workflows/${workflowId}/events/stream`, { 'last-event-id': String(stored.at(-1)!.sequence) });
    expect(afterLast.status).toBe(200);
    expect(await afterLast.eventsToEnd()).toEqual([]);
  });

  it('answers 400, 403 and 404 in the envelope before any stream', async () => {
    const workflowId = await startWorkflow('acme');
    const path = `/api/v1/workflows/${workflowId}/events/stream`;
    for (const bad of ['-1', 'abc', '1.5']) {
      const refused = await stream('acme', 'MEMBER', `${path}?fromSeq=${bad}`);
      expect([refused.status, refused.refusal?.code], bad).toEqual([400, 'ERR_REQUEST_QUERY_INVALID']);
    }
    for (const bad of ['x', '-1', '1.5', '99999999999999999']) {
      const refused = await stream('acme', 'MEMBER', path, { 'last-event-id': bad });
      expect([refused.status, refused.refusal?.code], bad).toEqual([400, 'ERR_REQUEST_HEADER_INVALID']);
      const audit = await stream('acme', 'ADMIN', '/api/v1/audit/stream', { 'last-event-id': bad });
      expect([audit.status, audit.refusal?.code], bad).toEqual([400, 'ERR_REQUEST_HEADER_INVALID']);
    }
    const otherTenant = await stream('bystander', 'MEMBER', path);
    expect([otherTenant.status, otherTenant.refusal?.code]).toEqual([403, 'ERR_WORKFLOW_OTHER_TENANT']);
    const viewer = await stream('acme', 'VIEWER', path);
    expect([viewer.status, viewer.refusal?.code]).toEqual([403, 'ERR_AUTH_ROLE_INSUFFICIENT']);
    const unknown = await stream('acme', 'MEMBER', `/api/v1/workflows/${randomUUID()}/events/stream`);
    expect([unknown.status, unknown.refusal?.code]).toEqual([404, 'ERR_WORKFLOW_NOT_FOUND']);
    for (const role of ['VIEWER', 'MEMBER'] as const) {
      const audit = await stream('acme', role, '/api/v1/audit/stream');
      expect([audit.status, audit.refusal?.code], role).toEqual([403, 'ERR_AUTH_ROLE_INSUFFICIENT']);
    }
    const badAfter = await stream('acme', 'ADMIN', '/api/v1/audit/stream?afterSeq=-2');
    expect([badAfter.status, badAfter.refusal?.code]).toEqual([400, 'ERR_REQUEST_QUERY_INVALID']);
    // HEAD says what the stream would be, and is over: it holds no stream.
    const head = await fetch(`${base}${path}`, { method: 'HEAD', headers: await headersOf('acme', 'MEMBER') });
    expect([head.status, head.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    expect(await head.text()).toBe('');
  });

  it('delivers the tenant’s newly linked audit records, as the list shows them, and never a bystander’s evaluating meanwhile', async () => {
    const acme = await stream('acme', 'ADMIN', '/api/v1/audit/stream');
    const bystander = await stream('bystander', 'ADMIN', '/api/v1/audit/stream');
    const rounds = 12;
    const answers = await Promise.all(Array.from({ length: rounds }, (_, i) => [evaluate('acme', i), evaluate('bystander', i)]).flat());
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const acmeSeen = await acme.eventsUntil<AuditRecord>(() => false, rounds);
    const bystanderSeen = await bystander.eventsUntil<AuditRecord>(() => false, rounds);
    acme.close();
    bystander.close();
    const acmeList = (await call<AuditRecord[]>('acme', 'ADMIN', 'GET', `/api/v1/audit?limit=${rounds}`)).body.reverse();
    const bystanderList = (await call<AuditRecord[]>('bystander', 'ADMIN', 'GET', `/api/v1/audit?limit=${rounds}`)).body.reverse();
    // Exactly the records each tenant's own list shows, in seq order, each with its seq as id.
    expect(acmeSeen.map((event) => event.data)).toEqual(acmeList);
    expect(acmeSeen.map((event) => event.id)).toEqual(acmeList.map((record) => String(record.seq)));
    expect(bystanderSeen.map((event) => event.data)).toEqual(bystanderList);
    expect(acmeSeen.every((event) => event.data.eventType === 'POLICY_EVALUATED' && event.data.actorId === 'member-of-acme')).toBe(true);
    const bystanderIds = new Set(bystanderList.map((record) => record.id));
    expect(acmeSeen.filter((event) => bystanderIds.has(event.data.id))).toEqual([]);
    // Resumed with Last-Event-ID: the records after it, from the chain.
    const lastButTwo = acmeList.at(-3)!.seq;
    const resumed = await stream('acme', 'ADMIN', '/api/v1/audit/stream?afterSeq=0', { 'last-event-id': String(lastButTwo) });
    expect((await resumed.eventsUntil<AuditRecord>(() => false, 2)).map((event) => event.data)).toEqual(acmeList.slice(-2));
    resumed.close();
  });

  it('ends a stream when its bearer token expires: the token no longer reads what the stream would send', async () => {
    const signer = createTokenSigner(createJwtKeyRing(parseJwtKeysSpec(deployment.env.JWT_KEYS!), 'JWT_KEYS'));
    const shortLived = async (role: Role) => ({
      authorization: `Bearer ${await signer.sign({ subject: 'brief', tenantId: 'acme', roles: [role], ttlSeconds: 2 })}`,
      'x-tenant-id': 'acme',
    });
    const workflowId = await startWorkflow('acme');
    const admin = await shortLived('ADMIN');
    const audit = await openEventStream(`${base}/api/v1/audit/stream`, admin);
    const events = await openEventStream(`${base}/api/v1/workflows/${workflowId}/events/stream`, await shortLived('MEMBER'));
    expect([audit.status, events.status]).toEqual([200, 200]);
    // Unfinished workflow, chain still growing: only the token's end ends them.
    await events.eventsUntil<WorkflowEvent>((event) => event.eventType === 'SIGNAL_AWAITED');
    await Promise.all([audit.eventsToEnd(), events.eventsToEnd()]);
    expect((await log('acme', workflowId)).map((event) => event.eventType)).not.toContain('WORKFLOW_COMPLETED');
    // Its client reconnecting with the same token is refused.
    const again = await openEventStream(`${base}/api/v1/audit/stream`, admin);
    expect([again.status, again.refusal?.code]).toEqual([401, 'ERR_AUTH_TOKEN_EXPIRED']);
  });

  it('bounds the streams per tenant (429) and per process (503), in the envelope with Retry-After', async () => {
    const crowd = `crowd-${randomUUID().slice(0, 8)}`;
    const held = await Promise.all([0, 1, 2].map(() => stream(crowd, 'ADMIN', '/api/v1/audit/stream')));
    expect(held.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const over = await stream(crowd, 'ADMIN', '/api/v1/audit/stream');
    expect([over.status, over.refusal?.code, over.headers.get('retry-after')]).toEqual([429, 'ERR_STREAM_TENANT_LIMIT', '10']);
    // Other tenants fill the process's 8 streams.
    const others = await Promise.all([0, 1, 2, 3, 4].map((i) => stream(`other-${i}-${crowd}`, 'ADMIN', '/api/v1/audit/stream')));
    expect(others.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    const full = await stream(`late-${crowd}`, 'ADMIN', '/api/v1/audit/stream');
    expect([full.status, full.refusal?.code, full.headers.get('retry-after')]).toEqual([503, 'ERR_STREAM_CAPACITY_REACHED', '10']);
    for (const answer of [...held, ...others]) answer.close();
    // Once the server has seen them go, streams are admitted again.
    let again = await stream(crowd, 'ADMIN', '/api/v1/audit/stream');
    for (let attempt = 0; again.status !== 200 && attempt < 200; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      again = await stream(crowd, 'ADMIN', '/api/v1/audit/stream');
    }
    expect(again.status).toBe(200);
    again.close();
  });
}

describe('event streams of the service (SQLite)', () => {
  streamsOfTheService(() => ({ env: {}, dispose: async () => {} }));
});

describeWithMongo('event streams of the service (MongoDB)', (url) => {
  streamsOfTheService(() => {
    const database = uniqueDatabaseName('event_streams');
    return { env: { MONGODB_URL: url, MONGODB_DATABASE: database }, dispose: () => dropMongoDatabase(url, database) };
  });
});

describe('the heartbeat', () => {
  let dir: string;
  let store: Store;
  let listeners: AppendListeners;
  let http: HttpListener;
  const prefix = `test-streams-${randomUUID()}`;
  const keyRing = newKeyRing();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pe-stream-heartbeat-'));
    store = await openSqliteStore(join(dir, 'store.sqlite'));
    listeners = await createAppendListeners({ subscriber: createRedisClient(REDIS_URL, 'test-append-notices'), channel: appendNoticeChannel(prefix) });
    const redis = await connectRedis();
    const streams = createOpenStreams({ maxPerTenant: 5, maxPerProcess: 5, heartbeatMs: 20, onError: () => {} });
    const app = createTestApp({
      store,
      redis,
      keyRing,
      prefix,
      routes: [createStreamRoutes({ workflows: { events: async () => [] }, audit: store.audit, notices: listeners, streams })],
    });
    http = await listen(app);
    const close = http.close;
    http.close = async () => {
      await streams.close();
      await close();
      redis.disconnect();
    };
  });

  afterAll(async () => {
    await http?.close();
    await listeners?.close();
    await store?.close();
    await removeRedisPrefix(prefix);
    await rm(dir, { recursive: true, force: true });
  });

  it('comes as a `: heartbeat` comment while nothing is appended, and a record stored meanwhile is read on it without a notice', async () => {
    const signer = createTokenSigner(keyRing);
    const token = await signer.sign({ subject: 'admin', tenantId: 'quiet', roles: ['ADMIN'], ttlSeconds: 600 });
    const events = await openEventStream(`${http.baseUrl}/api/v1/audit/stream?afterSeq=0`, { authorization: `Bearer ${token}`, 'x-tenant-id': 'quiet' });
    expect(events.status).toBe(200);
    let frame = await events.next();
    while (frame !== null && frame.kind !== 'comment') frame = await events.next();
    expect(frame).toEqual({ kind: 'comment', text: 'heartbeat' });
    // Linked straight into the store, announced to no one: the heartbeat's read finds it.
    const [record] = buildChain(null, 1);
    await linkChain(store, 'quiet', [record!]);
    const [seen] = await events.eventsUntil<AuditRecord>(() => true);
    expect(seen).toMatchObject({ id: '1', data: { id: record!.id, seq: 1 } });
    events.close();
  });
});
