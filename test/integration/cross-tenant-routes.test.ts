// Tenant A's credentials never reach tenant B's data, on every route of the service. The routes come
// from API_OPERATIONS, so a new route is probed as soon as it is documented (and a new path or query
// parameter, or body, fails here until the suite knows which of B's values to put in it). The built
// service runs as one process (role `all`, SQLite); B has data in every area: a deployed module with
// two versions, evaluations and their audit records, an anomaly and a waiting workflow.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../src/audit/index.js';
import { createJwtKeyRing, createTokenSigner, ROLES, roleSatisfies, type Role } from '../../src/auth/index.js';
import { signRequest } from '../../src/auth/request-signature.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import {
  API_OPERATIONS,
  assertServiceBuilt,
  REDIS_URL,
  registerTenant,
  removeRedisPrefix,
  runService,
  seedAnomalies,
  type ApiOperation,
  type ServiceProcess,
  type TenantInfo,
} from '../support/index.js';

const EPOCH = '1970-01-01T00:00:00.000Z';
const FAR_FUTURE = '2100-01-01T00:00:00.000Z';

/** Words that only B's data contains: an answer to A holding one of them has leaked B's data. */
const B_ONLY_TEXT = `b-private-${randomBytes(6).toString('hex')}`;
const B_ANOMALY_SUMMARY = `b-anomaly-${randomBytes(6).toString('hex')}`;
const B_MODULE = `bonly.m${randomBytes(4).toString('hex')}`;
const A_MODULE = `aonly.m${randomBytes(4).toString('hex')}`;

const bSource = (threshold: number) => `Module ${B_MODULE}.

Rule approve given amount as Int, produce Bool:
  If amount is greater than 1000000:
    Fail with "${B_ONLY_TEXT}".
  Return amount is at least ${threshold}.

Workflow review given amount as Int:
  Step check: approve(amount).
  Step decision: Await "approval" within 48 hours.
`;

const A_SOURCE = `Module ${A_MODULE}.

Rule price given amount as Int, produce Int:
  Return amount times 2.
`;

interface Answer {
  status: number;
  code: string | null;
  text: string;
  json: unknown;
}

/** What B owns, as ids to put in A's requests and as text to look for in A's answers. */
interface TenantBData {
  tenant: TenantInfo;
  anomalyId: string;
  policyId: string;
  workflowId: string;
  auditHeadSeq: number;
  /** One of B's audit records, as B's answers' receipts name them. */
  auditRecordId: string;
  /** B's webhook subscription and one of its deliveries. */
  webhookId: string;
  deliveryId: string;
  markers: string[];
}

/** A request for one operation: path (with query), body, and what A must get when its role suffices. */
interface Probe {
  method: string;
  target: string;
  body: string | undefined;
  /** Set when the path names one of B's objects: A must not find it. */
  notFound?: { status: number; code: string };
}

/** B's value for each path parameter; an unknown parameter fails the suite until one is added. */
function pathValue(op: ApiOperation, name: string, b: TenantBData): { value: string; notFound?: Probe['notFound'] } {
  switch (name) {
    case 'eventType':
      return { value: 'POLICY_EVALUATED' };
    case 'policyFunction':
      return { value: 'approve' };
    case 'policyModule':
      // The audit list filters by module (an empty list for A); the registry names B's module.
      return op.doc.tag === 'registry' ? { value: B_MODULE, notFound: { status: 404, code: 'ERR_POLICY_NOT_FOUND' } } : { value: B_MODULE };
    case 'id':
      if (op.doc.tag === 'anomalies') return { value: b.anomalyId, notFound: { status: 404, code: 'ERR_ANOMALY_NOT_FOUND' } };
      if (op.doc.tag === 'registry') return { value: b.policyId, notFound: { status: 404, code: 'ERR_POLICY_NOT_FOUND' } };
      if (op.doc.tag === 'audit') return { value: b.auditRecordId, notFound: { status: 404, code: 'ERR_AUDIT_RECORD_NOT_FOUND' } };
      if (op.doc.tag === 'webhooks') return { value: b.webhookId, notFound: { status: 404, code: 'ERR_WEBHOOK_NOT_FOUND' } };
      break;
    case 'deliveryId':
      return { value: b.deliveryId, notFound: { status: 404, code: 'ERR_WEBHOOK_NOT_FOUND' } };
    case 'version':
      // B has versions 1 and 2 of its module; A has none, so the module is unknown to A.
      return { value: '2' };
    case 'workflowId':
      // Documented (src/workflows/README.md): another tenant's workflow is told apart from an unknown one.
      return { value: b.workflowId, notFound: { status: 403, code: 'ERR_WORKFLOW_OTHER_TENANT' } };
  }
  throw new Error(`no value of tenant B for path parameter {${name}} of ${op.method.toUpperCase()} ${op.path}: add one`);
}

const graphqlProbe = (b: TenantBData) =>
  `query Probe { theirs: getPolicy(id: ${JSON.stringify(b.policyId)}) { id policyModule source } mine: listPolicies(page: 1) { id policyModule source } }`;

/** The rollup series answers at most 1,440 points: hours around B's evaluations, made while the suite runs. */
const ROLLUP_WINDOW: Record<string, string> = {
  startTime: new Date(Date.now() - 86_400_000).toISOString(),
  endTime: new Date(Date.now() + 86_400_000).toISOString(),
};

/** The workflow list's filters, each matching B's waiting workflow: a list that leaked would show it. */
const WORKFLOW_LIST_FILTERS: Record<string, string> = {
  status: 'WAITING',
  workflow: 'review',
  startedAfter: '2000-01-01T00:00:00Z',
  startedBefore: '2099-12-31T23:59:59Z',
};

/** B's value for each query parameter (every one is sent); an unknown one fails the suite until added. */
function queryValue(op: ApiOperation, name: string, b: TenantBData): string {
  const values: Record<string, string> = {
    limit: '1000',
    before: String(b.auditHeadSeq + 1),
    startTime: '2000-01-01T00:00:00Z',
    endTime: '2099-12-31T23:59:59Z',
    type: 'HIGH_FAILURE_RATE',
    days: '3650',
    page: '0',
    size: '100',
    policyModule: B_MODULE,
    policyFunction: 'approve',
    version: '1',
    step: 'hour',
    status: 'ACTIVE',
    trace: 'true',
    full: 'true',
    locale: 'de-DE',
    fromSeq: '0',
    // The whole chain: A's own records come at once, B's must never.
    afterSeq: '0',
    query: graphqlProbe(b),
    variables: '{}',
    operationName: 'Probe',
  };
  const perRoute = { '/api/v1/audit/rollups': ROLLUP_WINDOW, '/api/v1/workflows': WORKFLOW_LIST_FILTERS }[op.path];
  const value = perRoute?.[name] ?? values[name];
  if (value === undefined) throw new Error(`no value of tenant B for query parameter \`${name}\` of ${op.method.toUpperCase()} ${op.path}: add one`);
  return value;
}

/** A body for each operation that takes one, naming B's objects where it can. */
function bodyOf(op: ApiOperation, b: TenantBData): unknown {
  const bodies: Record<string, unknown> = {
    'patch /api/v1/audit/anomalies/{id}/status': { status: 'DISMISSED', note: 'not yours' },
    'put /api/v1/audit/anomaly-settings': { minSamples: 77 },
    'post /api/v1/policies/evaluate-source': { source: A_SOURCE, functionName: 'price', context: { amount: 2 } },
    'post /api/v1/policies/evaluate-source/batch': {
      items: [
        { policyModule: B_MODULE, policyFunction: 'approve', context: { amount: 2_000_000 } },
        { source: A_SOURCE, functionName: 'price', context: { amount: 3 } },
      ],
    },
    'post /api/v1/policies': { source: A_SOURCE },
    // A's source under B's module name, with a case of B's rule: checked alone, never against B's version.
    'post /api/v1/policies/check': {
      source: A_SOURCE.replace(A_MODULE, B_MODULE),
      tests: { cases: [{ name: 'b', rule: 'approve', context: { amount: 2_000_000 }, expect: true }] },
      showIn: 'de-DE',
    },
    'post /api/v1/policies/evaluate': { policyModule: B_MODULE, policyFunction: 'approve', context: { amount: 2_000_000 } },
    'post /api/v1/policies/{policyModule}/rollback': { version: 1 },
    'post /api/v1/policies/{policyModule}/rollout/promote': { reason: 'not yours' },
    'post /api/v1/policies/{policyModule}/rollout/abort': { reason: 'not yours' },
    'post /api/v1/workflows': { policyModule: B_MODULE, workflow: 'review', context: { amount: 50 } },
    'post /api/v1/workflows/{workflowId}/signals': { signal: 'approval', approved: true },
    'post /graphql': { query: graphqlProbe(b) },
    'post /api/v1/webhooks': { url: 'https://hooks.example.com/of-a', events: ['POLICY_DEPLOYED'] },
  };
  const key = `${op.method} ${op.path}`;
  if (!(key in bodies)) throw new Error(`no body naming tenant B's data for ${op.method.toUpperCase()} ${op.path}: add one`);
  return bodies[key];
}

function probeOf(op: ApiOperation, b: TenantBData): Probe {
  let notFound: Probe['notFound'];
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const named = pathValue(op, name, b);
    notFound ??= named.notFound;
    return encodeURIComponent(named.value);
  });
  const query = new URLSearchParams(Object.keys(op.query?.shape ?? {}).map((name): [string, string] => [name, queryValue(op, name, b)])).toString();
  return {
    method: op.method.toUpperCase(),
    target: query === '' ? path : `${path}?${query}`,
    body: op.body === undefined ? undefined : JSON.stringify(bodyOf(op, b)),
    ...(notFound ? { notFound } : {}),
  };
}

const operationName = (op: ApiOperation) => `${op.method.toUpperCase()} ${op.path}`;
const PROTECTED = API_OPERATIONS.filter((op) => op.auth !== 'none');
const SIGNED = API_OPERATIONS.filter((op) => op.auth === 'signed' || op.auth === 'signed-or-bearer');

/** A stream does not end by itself: what it sends until its first event (A's own records come at once), then it is closed. */
async function firstEvents(response: Response): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!/\ndata: /.test(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return text;
}

/** Everything of B's that a request could change, read straight from the store. */
async function snapshotOf(store: Store, b: TenantBData) {
  const tenantId = b.tenant.tenantId;
  const anomalies = (await store.anomalies.list(tenantId, { detectedFrom: EPOCH, offset: 0, limit: 1000 })).items;
  return {
    audit: await store.audit.list(tenantId, { limit: 10_000 }),
    unlinkedAudit: await store.auditLinks.unlinkedSummary(tenantId),
    versions: (await store.policies.listVersions(tenantId, B_MODULE, { offset: 0, limit: 100 })).items,
    activations: await store.policies.listActivations(tenantId),
    anomalies,
    transitions: await Promise.all(anomalies.map((anomaly) => store.anomalies.transitions(tenantId, anomaly.id))),
    anomalySettings: await store.anomalySettings.get(tenantId),
    workflow: await store.workflows.get(tenantId, b.workflowId),
    workflowEvents: await store.workflows.events(tenantId, b.workflowId, 0, 10_000),
    rollups: await store.rollups.range(tenantId, { from: EPOCH, to: FAR_FUTURE }),
    webhooks: await store.webhooks.subscriptionsOf(tenantId),
  };
}

describe('tenant A’s credentials on every route, aimed at tenant B', () => {
  let dir: string;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;
  let baseUrl: string;
  let a: TenantInfo;
  let b: TenantBData;
  let before: Awaited<ReturnType<typeof snapshotOf>>;
  const jwtSecret = randomBytes(32).toString('base64url');
  const signer = createTokenSigner(createJwtKeyRing([{ kid: 'k1', secret: jwtSecret }], 'test'));
  const exercised = { bearer: new Set<string>(), signed: new Set<string>() };

  const start = async () => {
    service = runService([], env);
    baseUrl = `http://127.0.0.1:${(await service.waitForLog('api listening')).port as number}`;
    await service.waitForLog('service started');
  };
  // A graceful stop stores and links every audit record: what the chain holds afterwards is all there is.
  const stop = async () => {
    if (service && service.child.exitCode === null) service.child.kill('SIGTERM');
    await service?.exited;
    service = undefined;
  };
  const withStore = async <T>(work: (store: Store) => Promise<T>): Promise<T> => {
    const store = await openSqliteStore(join(dir, 'policy-engine.sqlite'));
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  };

  const send = async (method: string, target: string, body: string | undefined, headers: Record<string, string>): Promise<Answer> => {
    const response = await fetch(`${baseUrl}${target}`, {
      method,
      headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
    const text = (response.headers.get('content-type') ?? '').startsWith('text/event-stream') ? await firstEvents(response) : await response.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON: the text alone is checked.
    }
    const code = json !== null && typeof json === 'object' && typeof (json as { code?: unknown }).code === 'string' ? (json as { code: string }).code : null;
    return { status: response.status, code, text, json };
  };
  const bearer = async (tenant: TenantInfo, role: Role, headerTenant: string) => ({
    authorization: `Bearer ${await signer.sign({ subject: `${role.toLowerCase()}-of-${tenant.tenantId}`, tenantId: tenant.tenantId, roles: [role], ttlSeconds: 600 })}`,
    'x-tenant-id': headerTenant,
  });
  const signedBy = (tenant: TenantInfo, role: Role, headerTenant: string, probe: Probe) =>
    signRequest({ method: probe.method, pathWithQuery: probe.target, body: probe.body ?? '', tenantId: headerTenant, role, secret: tenant.secret });
  /** A request of B's own, for seeding; fails the suite unless it answers `status`. */
  const asB = async (role: Role, method: string, target: string, body: unknown, status: number) => {
    const answer = await send(method, target, body === undefined ? undefined : JSON.stringify(body), await bearer(b.tenant, role, b.tenant.tenantId));
    expect(answer.status, `${method} ${target}: ${answer.text.slice(0, 300)}`).toBe(status);
    return answer.json as Record<string, unknown>;
  };

  /** An answer to A: no 5xx, an error envelope when refused, and none of B's data beyond what A itself sent. */
  const expectOnlyAData = (answer: Answer, probe: Probe, role: Role, op: ApiOperation, label: string) => {
    expect(answer.status, `${label}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
    if (answer.status >= 400) expect(answer.code, `${label}: ${answer.text.slice(0, 300)}`).toMatch(/^ERR_/);
    const sent = `${probe.target}\n${probe.body ?? ''}`;
    const leaked = b.markers.filter((marker) => !sent.includes(marker) && answer.text.includes(marker));
    expect(leaked, `${label} leaked B's data: ${answer.text.slice(0, 500)}`).toEqual([]);
    if (probe.notFound && roleSatisfies(role, op.role ?? 'VIEWER')) {
      expect([answer.status, answer.code], `${label} found B's object`).toEqual([probe.notFound.status, probe.notFound.code]);
    }
  };

  beforeAll(async () => {
    assertServiceBuilt();
    dir = await mkdtemp(join(tmpdir(), 'pe-cross-tenant-'));
    env = {
      DATA_DIR: dir,
      REDIS_URL,
      REDIS_KEY_PREFIX: `cross-tenant-${randomUUID()}`,
      HOST: '127.0.0.1',
      PORT: '0',
      RATE_LIMIT_POINTS: '1000000',
      JWT_KEYS: `k1:${jwtSecret}`,
      ENGINE_THREADS: '1',
      // No scheduled detection while the suite compares B's data before and after.
      ANOMALY_DETECT_INTERVAL_SECONDS: '86400',
    };
    const seeded = await withStore(async (store) => {
      const tenants = { a: await registerTenant(store, 'tenant-a'), b: await registerTenant(store, 'tenant-b') };
      const key = { type: 'HIGH_FAILURE_RATE', policyFunction: 'approve', version: 1 } as const;
      await seedAnomalies(store, tenants.a.tenantId, [{ ...key, policyModule: A_MODULE, summary: 'an anomaly of A' }]);
      const [anomaly] = await seedAnomalies(store, tenants.b.tenantId, [{ ...key, policyModule: B_MODULE, summary: B_ANOMALY_SUMMARY }]);
      return { ...tenants, anomalyId: anomaly!.id };
    });
    a = seeded.a;
    b = {
      tenant: seeded.b,
      anomalyId: seeded.anomalyId,
      policyId: `${B_MODULE}.approve@2`,
      workflowId: '',
      auditHeadSeq: 0,
      auditRecordId: '',
      webhookId: '',
      deliveryId: '',
      markers: [],
    };

    await start();
    // A subscription of B's whose deliveries (of its deploys) go nowhere: their attempts fail, and stay B's.
    const subscribed = await asB('ADMIN', 'POST', '/api/v1/webhooks', { url: `https://${B_MODULE}.invalid/hook`, events: ['POLICY_DEPLOYED'] }, 201);
    b.webhookId = subscribed.id as string;
    const webhookSecret = subscribed.secret as string;
    await asB('ADMIN', 'POST', '/api/v1/policies', { source: bSource(10) }, 201);
    await asB('ADMIN', 'POST', '/api/v1/policies', { source: bSource(20) }, 201);
    for (const amount of [5, 50, 2_000_000]) {
      await asB('MEMBER', 'POST', '/api/v1/policies/evaluate', { policyModule: B_MODULE, policyFunction: 'approve', context: { amount } }, 200);
    }
    await asB('MEMBER', 'POST', '/api/v1/policies/evaluate', { policyModule: B_MODULE, policyFunction: 'approve', context: { amount: 15 }, version: 1 }, 200);
    b.workflowId = (await asB('MEMBER', 'POST', '/api/v1/workflows', { policyModule: B_MODULE, workflow: 'review', context: { amount: 50 } }, 201)).workflowId as string;
    // The workflow runs its first step on the worker, then waits for a signal that never comes.
    for (let attempt = 0; ; attempt += 1) {
      const state = await asB('MEMBER', 'GET', `/api/v1/workflows/${b.workflowId}`, undefined, 200);
      if (state.status === 'WAITING') break;
      if (attempt === 200) throw new Error(`B's workflow did not reach WAITING: ${JSON.stringify(state)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (let attempt = 0; b.deliveryId === ''; attempt += 1) {
      const page = await asB('ADMIN', 'GET', `/api/v1/webhooks/${b.webhookId}/deliveries`, undefined, 200);
      b.deliveryId = ((page.content as Array<{ id: string }>)[0]?.id as string | undefined) ?? '';
      if (attempt === 200) throw new Error('no delivery of B\'s deploys was stored');
      if (b.deliveryId === '') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const asA = await bearer(a, 'ADMIN', a.tenantId);
    expect((await send('POST', '/api/v1/policies', JSON.stringify({ source: A_SOURCE }), asA)).status).toBe(201);
    expect((await send('POST', '/api/v1/policies/evaluate', JSON.stringify({ policyModule: A_MODULE, policyFunction: 'price', context: { amount: 1 } }), asA)).status).toBe(200);
    await stop();

    before = await withStore((store) => snapshotOf(store, b));
    b.auditHeadSeq = before.audit[0]!.seq;
    b.auditRecordId = before.audit.find((record) => record.eventType === 'POLICY_EVALUATED')!.id;
    b.markers = [
      b.tenant.tenantId,
      b.tenant.secret,
      B_ONLY_TEXT,
      B_ANOMALY_SUMMARY,
      B_MODULE,
      b.anomalyId,
      b.workflowId,
      b.webhookId,
      b.deliveryId,
      webhookSecret,
      ...before.versions.map((version) => version.sourceHash),
      ...before.audit.map((record) => record.hash),
      ...before.audit.map((record) => record.id),
    ];
    // B's data is really there in every area, so that not seeing it means something.
    expect(before.versions.map((version) => version.version)).toEqual([1, 2]);
    expect(new Set(before.audit.map((record) => record.eventType))).toEqual(new Set(['ANOMALY_DETECTED', 'POLICY_DEPLOYED', 'POLICY_EVALUATED']));
    expect(before.unlinkedAudit).toEqual({ count: 0, oldestStoredAt: null });
    expect(before.anomalies.map((anomaly) => [anomaly.id, anomaly.status])).toEqual([[b.anomalyId, 'OPEN']]);
    expect(before.workflowEvents.map((event) => event.eventType)).toContain('SIGNAL_AWAITED');
    expect(before.rollups.length).toBeGreaterThan(0);
    await start();
  }, 120_000);

  afterAll(async () => {
    await stop();
    if (env) await removeRedisPrefix(env.REDIS_KEY_PREFIX!);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses A’s bearer token with X-Tenant-ID of B on every route, whatever the role', async () => {
    for (const op of PROTECTED) {
      const probe = probeOf(op, b);
      for (const role of ROLES) {
        const answer = await send(probe.method, probe.target, probe.body, await bearer(a, role, b.tenant.tenantId));
        // GraphQL takes signatures only: a token, whoever's, is no way in.
        const expected = op.auth === 'signed' ? 'ERR_AUTH_SIGNATURE_MISSING' : 'ERR_AUTH_TENANT_MISMATCH';
        expect([answer.status, answer.code], `${operationName(op)} as A's ${role}: ${answer.text.slice(0, 300)}`).toEqual([403, expected]);
      }
      exercised.bearer.add(operationName(op));
    }
  });

  it('answers A’s bearer token naming B’s objects with A’s data only', async () => {
    for (const op of PROTECTED) {
      const probe = probeOf(op, b);
      for (const role of ROLES) {
        const answer = await send(probe.method, probe.target, probe.body, await bearer(a, role, a.tenantId));
        if (op.auth === 'signed') {
          expect([answer.status, answer.code], `${operationName(op)} as A's ${role}`).toEqual([403, 'ERR_AUTH_SIGNATURE_MISSING']);
          continue;
        }
        expectOnlyAData(answer, probe, role, op, `${operationName(op)} as A's ${role}`);
      }
    }
  });

  it('refuses a signature made with A’s secret under X-Tenant-Id of B', async () => {
    for (const op of SIGNED) {
      const probe = probeOf(op, b);
      for (const role of ROLES) {
        const answer = await send(probe.method, probe.target, probe.body, signedBy(a, role, b.tenant.tenantId, probe));
        // The role is checked before the signature: a role below the route's is refused for that.
        const expected = roleSatisfies(role, op.role ?? 'VIEWER') ? 'ERR_AUTH_SIGNATURE_INVALID' : 'ERR_AUTH_ROLE_INSUFFICIENT';
        expect([answer.status, answer.code], `${operationName(op)} signed by A as ${role}: ${answer.text.slice(0, 300)}`).toEqual([403, expected]);
      }
      exercised.signed.add(operationName(op));
    }
  });

  it('answers A’s signed requests naming B’s objects with A’s data only', async () => {
    for (const op of SIGNED) {
      const probe = probeOf(op, b);
      for (const role of ROLES) {
        const answer = await send(probe.method, probe.target, probe.body, signedBy(a, role, a.tenantId, probe));
        expectOnlyAData(answer, probe, role, op, `${operationName(op)} signed by A as ${role}`);
      }
    }
  });

  it('probed every authenticated route', () => {
    expect(PROTECTED.length).toBeGreaterThan(0);
    expect([...exercised.bearer].sort()).toEqual(PROTECTED.map(operationName).sort());
    expect(exercised.bearer.size).toBe(PROTECTED.length);
    expect([...exercised.signed].sort()).toEqual(SIGNED.map(operationName).sort());
  });

  it('left B’s data as it was, with an intact audit chain', async () => {
    await stop();
    await withStore(async (store) => {
      expect(await snapshotOf(store, b)).toEqual(before);
      expect(await verifyChain(store.audit, b.tenant.tenantId)).toMatchObject({ valid: true, checked: before.audit.length });
    });
  });
});
