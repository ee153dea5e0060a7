import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
// The service's own code, only to hold the package's copies of its rules to it.
import { canonicalJson as serviceCanonicalJson } from '../../../src/audit/canonical-json.js';
import { verifySignature } from '../../../src/auth/request-signature.js';
import { canonicalJson, createPolicyClient, PolicyHttpError, PolicyProtocolError, signRequest, type PolicyClientOptions } from '../src/index.js';

interface Scripted {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const SECRET = 'routes-test-secret';
const RECORD_ID = '0b6c2f7e-3d1a-4c5b-9e8f-7a6b5c4d3e2f';
const CONTENT_HASH = 'a'.repeat(64);

let server: Server;
let baseUrl: string;
let script: Scripted[] = [];
let received: Recorded[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      const next = script.shift() ?? { status: 599, body: { error: 'test server script exhausted' } };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(next.body === undefined ? '' : JSON.stringify(next.body));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  script = [];
  received = [];
});

function makeClient(overrides: Partial<PolicyClientOptions> = {}) {
  return createPolicyClient({ baseUrl, tenantId: 'acme', role: 'MEMBER', secret: SECRET, sleep: async () => {}, ...overrides });
}

const sentJson = (index = 0) => JSON.parse(received[index]!.body.toString('utf8')) as unknown;

function verified(request: Recorded) {
  return verifySignature({
    method: request.method,
    pathWithQuery: request.url,
    body: request.body,
    tenantId: String(request.headers['x-tenant-id']),
    role: String(request.headers['x-user-role']),
    timestamp: request.headers['x-policy-timestamp'] as string,
    nonce: request.headers['x-policy-nonce'] as string,
    signatureHeader: request.headers['x-policy-signature'] as string,
    secrets: [SECRET],
  });
}

describe('deployed policies by name', () => {
  it('evaluatePolicy posts the reference and reads the outcome, the version that answered and the receipt', async () => {
    script = [
      {
        status: 200,
        headers: { 'x-audit-record-id': RECORD_ID, 'x-audit-content-hash': CONTENT_HASH },
        body: { result: 42, error: null, executionTimeMs: 0.4, diagnostics: [], policyModule: 'acme.pricing', policyFunction: 'price', version: 3, versionId: 'acme.pricing@3' },
      },
    ];
    const outcome = await makeClient().evaluatePolicy<number>({ policyModule: 'acme.pricing', policyFunction: 'price', context: { amount: 21 }, version: 3 });
    expect(outcome).toMatchObject({
      ok: true,
      result: 42,
      executionTimeMs: 0.4,
      receipt: { id: RECORD_ID, contentHash: CONTENT_HASH },
      policy: { policyModule: 'acme.pricing', policyFunction: 'price', version: 3, versionId: 'acme.pricing@3' },
      status: 200,
      attempts: 1,
    });
    expect(received[0]).toMatchObject({ method: 'POST', url: '/api/v1/policies/evaluate' });
    expect(sentJson()).toEqual({ policyModule: 'acme.pricing', policyFunction: 'price', version: 3, context: { amount: 21 } });
    expect(verified(received[0]!)).toMatchObject({ ok: true });
  });

  it('reports a failed evaluation of a deployed policy as an outcome, and an unknown one as a 404', async () => {
    script = [
      { status: 200, body: { result: null, error: 'PL3004 refused', executionTimeMs: 0.1, code: 'PL3004', diagnostics: [], policyModule: 'm', policyFunction: 'f', version: 1, versionId: 'm@1' } },
      { status: 404, body: { result: null, error: 'no policy module `nope`', executionTimeMs: 0, code: 'ERR_POLICY_NOT_FOUND' } },
    ];
    const client = makeClient({ secret: undefined, bearerToken: 'tok' });
    const failed = await client.evaluatePolicy({ policyModule: 'm', policyFunction: 'f', context: [] }, { trace: true });
    expect(failed).toMatchObject({ ok: false, code: 'PL3004', receipt: null, policy: { versionId: 'm@1' } });
    expect(received[0]!.url).toBe('/api/v1/policies/evaluate?trace=true');
    expect(sentJson()).toEqual({ policyModule: 'm', policyFunction: 'f', context: [] });
    const error = await client.evaluatePolicy({ policyModule: 'nope', policyFunction: 'f', context: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyHttpError);
    expect(error).toMatchObject({ status: 404, code: 'ERR_POLICY_NOT_FOUND', attempts: 1 });
  });

  it('evaluateBatch sends source items and deployed references as given, each with its own receipt', async () => {
    const receipt = { auditRecordId: RECORD_ID, auditContentHash: CONTENT_HASH };
    script = [
      {
        status: 200,
        body: {
          results: [
            { result: 2, error: null, executionTimeMs: 1, diagnostics: [], ...receipt },
            { result: 4, error: null, executionTimeMs: 1, diagnostics: [], ...receipt },
            { result: null, error: 'no rule', executionTimeMs: 0, code: 'ERR_POLICY_FUNCTION_NOT_FOUND', diagnostics: [], auditRecordId: null, auditContentHash: null },
          ],
        },
      },
    ];
    const items = [
      { source: 'Module m.', functionName: 'f', context: [1] },
      { policyModule: 'acme.pricing', policyFunction: 'price', version: 1, context: { amount: 2 } },
      { policyModule: 'acme.pricing', policyFunction: 'nothing', context: {} },
    ];
    const outcome = await makeClient().evaluateBatch<number>(items);
    expect(outcome.results.map((r) => (r.ok ? r.result : r.code))).toEqual([2, 4, 'ERR_POLICY_FUNCTION_NOT_FOUND']);
    expect(outcome.results.map((r) => r.receipt)).toEqual([{ id: RECORD_ID, contentHash: CONTENT_HASH }, { id: RECORD_ID, contentHash: CONTENT_HASH }, null]);
    expect(received[0]!.url).toBe('/api/v1/policies/evaluate-source/batch');
    expect(sentJson()).toEqual({ items });
  });
});

describe('the REST routes', () => {
  const workflow = {
    workflowId: 'w-1',
    policyModule: 'acme.onboarding',
    version: 1,
    workflow: 'onboard',
    status: 'WAITING',
    currentStep: 'review',
    steps: [],
    finalResult: null,
    error: null,
    startedAt: '2026-03-01T10:00:00.000Z',
  };
  const page = { content: [], totalElements: 0, totalPages: 0, page: 1, size: 5 };

  it.each([
    ['deployPolicy', (c: ReturnType<typeof makeClient>) => c.deployPolicy({ source: 'Module m.' }), 'POST', '/api/v1/policies', { source: 'Module m.' }, { versionId: 'm@1' }],
    [
      'checkPolicy',
      (c: ReturnType<typeof makeClient>) => c.checkPolicy({ source: 'Modul m.', locale: 'de-DE', showIn: 'en-US' }),
      'POST',
      '/api/v1/policies/check',
      { source: 'Modul m.', locale: 'de-DE', showIn: 'en-US' },
      { ok: true, locale: 'de-DE', module: 'm' },
    ],
    ['listPolicies', (c: ReturnType<typeof makeClient>) => c.listPolicies({ policyModule: 'acme.pricing', status: 'ACTIVE', page: 1, size: 5 }), 'GET', '/api/v1/policies?policyModule=acme.pricing&status=ACTIVE&page=1&size=5', undefined, page],
    ['getPolicy', (c: ReturnType<typeof makeClient>) => c.getPolicy('acme.pricing.price@1'), 'GET', '/api/v1/policies/acme.pricing.price%401', undefined, { id: 'acme.pricing.price@1' }],
    ['listPolicyVersions', (c: ReturnType<typeof makeClient>) => c.listPolicyVersions('acme.pricing', { size: 5 }), 'GET', '/api/v1/policies/acme.pricing/versions?size=5', undefined, page],
    ['getPolicyVersion', (c: ReturnType<typeof makeClient>) => c.getPolicyVersion('acme.pricing', 0), 'GET', '/api/v1/policies/acme.pricing/versions/0', undefined, { version: 0 }],
    ['getPolicyVersionSource', (c: ReturnType<typeof makeClient>) => c.getPolicyVersionSource('acme.pricing', 2, { locale: 'de-DE' }), 'GET', '/api/v1/policies/acme.pricing/versions/2/source?locale=de-DE', undefined, { source: 'Modul m.' }],
    ['rollbackPolicy', (c: ReturnType<typeof makeClient>) => c.rollbackPolicy('acme.pricing', 1), 'POST', '/api/v1/policies/acme.pricing/rollback', { version: 1 }, { version: 1 }],
    ['startWorkflow', (c: ReturnType<typeof makeClient>) => c.startWorkflow({ policyModule: 'acme.onboarding', workflow: 'onboard', context: { age: 30 } }), 'POST', '/api/v1/workflows', { policyModule: 'acme.onboarding', workflow: 'onboard', context: { age: 30 } }, { workflowId: 'w-1' }],
    [
      'listWorkflows',
      (c: ReturnType<typeof makeClient>) => c.listWorkflows({ status: 'WAITING', policyModule: 'acme.onboarding', workflow: 'onboard', startedAfter: '2026-03-01T00:00:00+01:00', page: 2, size: 50 }),
      'GET',
      '/api/v1/workflows?status=WAITING&policyModule=acme.onboarding&workflow=onboard&startedAfter=2026-03-01T00%3A00%3A00%2B01%3A00&page=2&size=50',
      undefined,
      page,
    ],
    ['getWorkflow', (c: ReturnType<typeof makeClient>) => c.getWorkflow('w-1'), 'GET', '/api/v1/workflows/w-1', undefined, workflow],
    ['signalWorkflow', (c: ReturnType<typeof makeClient>) => c.signalWorkflow('w-1', { signal: 'approval', approved: true }), 'POST', '/api/v1/workflows/w-1/signals', { signal: 'approval', approved: true }, workflow],
    ['cancelWorkflow', (c: ReturnType<typeof makeClient>) => c.cancelWorkflow('w-1'), 'POST', '/api/v1/workflows/w-1/cancel', undefined, workflow],
    ['workflowEvents', (c: ReturnType<typeof makeClient>) => c.workflowEvents('w-1', { fromSeq: 3 }), 'GET', '/api/v1/workflows/w-1/events?fromSeq=3', undefined, []],
    ['listAudit', (c: ReturnType<typeof makeClient>) => c.listAudit({ limit: 50, before: 200 }), 'GET', '/api/v1/audit?limit=50&before=200', undefined, []],
    ['listAuditByType', (c: ReturnType<typeof makeClient>) => c.listAuditByType('POLICY_EVALUATED'), 'GET', '/api/v1/audit/type/POLICY_EVALUATED', undefined, []],
    ['listAuditByPolicy', (c: ReturnType<typeof makeClient>) => c.listAuditByPolicy('acme.pricing', 'price', { limit: 10 }), 'GET', '/api/v1/audit/policy/acme.pricing/price?limit=10', undefined, []],
    ['listAuditRange', (c: ReturnType<typeof makeClient>) => c.listAuditRange({ startTime: '2026-01-01T00:00:00Z', endTime: '2026-12-31T23:59:59+01:00' }), 'GET', '/api/v1/audit/range?startTime=2026-01-01T00%3A00%3A00Z&endTime=2026-12-31T23%3A59%3A59%2B01%3A00', undefined, []],
    ['getRollups', (c: ReturnType<typeof makeClient>) => c.getRollups({ policyModule: 'm', policyFunction: 'f', startTime: 'a', endTime: 'b', step: 'hour' }), 'GET', '/api/v1/audit/rollups?policyModule=m&policyFunction=f&startTime=a&endTime=b&step=hour', undefined, { series: [] }],
    ['listAnomalies', (c: ReturnType<typeof makeClient>) => c.listAnomalies({ type: 'ZOMBIE_VERSION', days: 30, page: 1, size: 5 }), 'GET', '/api/v1/audit/anomalies?type=ZOMBIE_VERSION&days=30&page=1&size=5', undefined, page],
    ['getAnomaly', (c: ReturnType<typeof makeClient>) => c.getAnomaly('an-1'), 'GET', '/api/v1/audit/anomalies/an-1', undefined, { id: 'an-1' }],
    ['getAnomalySettings', (c: ReturnType<typeof makeClient>) => c.getAnomalySettings(), 'GET', '/api/v1/audit/anomaly-settings', undefined, { defaults: {} }],
    ['setAnomalySettings', (c: ReturnType<typeof makeClient>) => c.setAnomalySettings({ minEvaluations: 80, zombieMinEvaluations: null }), 'PUT', '/api/v1/audit/anomaly-settings', { minEvaluations: 80, zombieMinEvaluations: null }, { defaults: {} }],
    ['createWebhook', (c: ReturnType<typeof makeClient>) => c.createWebhook({ url: 'https://hooks.example.com/in', events: ['POLICY_DEPLOYED'] }), 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/in', events: ['POLICY_DEPLOYED'] }, { id: 'wh-1', secret: 'whsec_x' }],
    ['listWebhooks', (c: ReturnType<typeof makeClient>) => c.listWebhooks({ page: 1, size: 5 }), 'GET', '/api/v1/webhooks?page=1&size=5', undefined, page],
    ['getWebhook', (c: ReturnType<typeof makeClient>) => c.getWebhook('wh/1'), 'GET', '/api/v1/webhooks/wh%2F1', undefined, { id: 'wh/1' }],
    ['listWebhookDeliveries', (c: ReturnType<typeof makeClient>) => c.listWebhookDeliveries('wh-1', { size: 5 }), 'GET', '/api/v1/webhooks/wh-1/deliveries?size=5', undefined, page],
    ['redeliverWebhook', (c: ReturnType<typeof makeClient>) => c.redeliverWebhook('wh-1', 'dlv_1'), 'POST', '/api/v1/webhooks/wh-1/deliveries/dlv_1/redeliver', undefined, { id: 'dlv_1', status: 'PENDING' }],
  ] as const)('%s calls its route', async (_name, call, method, url, body, answer) => {
    script = [{ status: method === 'POST' && url.endsWith('/api/v1/workflows') ? 201 : 200, body: answer }];
    const client = makeClient({ bearerToken: 'tok', role: 'ADMIN' });
    expect(await call(client)).toEqual(answer);
    expect(received[0]).toMatchObject({ method, url });
    if (body === undefined) expect(received[0]!.body.length).toBe(0);
    else expect(sentJson()).toEqual(body);
    expect(received[0]!.headers.authorization).toBe('Bearer tok');
    expect(verified(received[0]!)).toMatchObject({ ok: true });
  });

  it('reads verify and a record by its receipt, checking their shape', async () => {
    const record = {
      id: RECORD_ID,
      seq: null,
      eventType: 'POLICY_EVALUATED',
      policyModule: 'm',
      policyFunction: 'f',
      actorId: 'alice',
      occurredAt: '2026-03-01T10:00:00.000Z',
      payload: {},
      hash: null,
      previousHash: null,
      linked: false,
      contentHash: CONTENT_HASH,
    };
    const verification = { valid: true, checked: 3, headSeq: 3, headHash: 'b'.repeat(64), firstInvalidSeq: null, reason: null, unlinked: 1, oldestUnlinkedAgeMs: 12 };
    script = [
      { status: 200, body: record },
      { status: 200, body: verification },
      { status: 200, body: { ...record, linked: true } },
    ];
    const client = makeClient({ secret: undefined, bearerToken: 'tok', role: 'ADMIN' });
    expect(await client.getAuditRecord({ id: RECORD_ID, contentHash: CONTENT_HASH })).toEqual(record);
    expect(received[0]!.url).toBe(`/api/v1/audit/records/${RECORD_ID}`);
    expect(await client.verifyAudit({ full: true })).toEqual(verification);
    expect(received[1]!.url).toBe('/api/v1/audit/verify?full=true');
    await expect(client.getAuditRecord(RECORD_ID)).rejects.toThrow(PolicyProtocolError);
  });

  it('sends an Idempotency-Key with the anomaly changes, and reads the 202 of a verification', async () => {
    script = [{ status: 202 }, { status: 200, body: { id: 'an-1', status: 'RESOLVED' } }];
    const client = makeClient({ secret: undefined, bearerToken: 'tok', role: 'ADMIN' });
    await expect(client.verifyAnomaly('an-1', { idempotencyKey: 'k-1' })).resolves.toBeUndefined();
    expect(received[0]).toMatchObject({ method: 'POST', url: '/api/v1/audit/anomalies/an-1/actions/verify' });
    expect(received[0]!.headers['idempotency-key']).toBe('k-1');
    expect(await client.setAnomalyStatus('an-1', { status: 'RESOLVED', note: 'fixed' }, { idempotencyKey: 'k-2' })).toMatchObject({ status: 'RESOLVED' });
    expect(received[1]).toMatchObject({ method: 'PATCH', url: '/api/v1/audit/anomalies/an-1/status' });
    expect(received[1]!.headers['idempotency-key']).toBe('k-2');
    expect(sentJson(1)).toEqual({ status: 'RESOLVED', note: 'fixed' });
  });

  it('deletes a webhook subscription, reading the 204', async () => {
    script = [{ status: 204 }];
    const client = makeClient({ bearerToken: 'tok', role: 'ADMIN' });
    expect(await client.deleteWebhook('wh-1')).toBeUndefined();
    expect(received[0]).toMatchObject({ method: 'DELETE', url: '/api/v1/webhooks/wh-1' });
    expect(received[0]!.body.length).toBe(0);
  });

  it('encodes path parameters and refuses empty ones and an answer of the wrong shape', async () => {
    script = [{ status: 200, body: { id: 'x' } }, { status: 200, body: { not: 'an array' } }];
    const client = makeClient();
    await client.getWorkflow('a/b?c');
    expect(received[0]!.url).toBe('/api/v1/workflows/a%2Fb%3Fc');
    expect(verified(received[0]!)).toMatchObject({ ok: true });
    await expect(client.workflowEvents('w-1')).rejects.toThrow(PolicyProtocolError);
    await expect(client.getAnomaly('')).rejects.toThrow(TypeError);
    await expect(client.getPolicyVersion('m', -1)).rejects.toThrow(TypeError);
    expect(received).toHaveLength(2);
  });
});

describe("the package's own copies of the service's rules", () => {
  it('signRequest signs as the service verifies', async () => {
    const body = JSON.stringify({ source: 'Zoë', n: [1, 2] });
    const headers = await signRequest({ method: 'post', pathWithQuery: '/graphql?x=1', body, tenantId: 'acme', role: 'MEMBER', secret: SECRET, timestamp: 1_772_000_000 });
    expect(
      verifySignature({
        method: 'POST',
        pathWithQuery: '/graphql?x=1',
        body: Buffer.from(body),
        tenantId: headers['X-Tenant-Id'],
        role: headers['X-User-Role'],
        timestamp: headers['X-Policy-Timestamp'],
        nonce: headers['X-Policy-Nonce'],
        signatureHeader: headers['X-Policy-Signature'],
        secrets: [SECRET],
        nowSeconds: 1_772_000_000,
      }),
    ).toMatchObject({ ok: true });
    await expect(signRequest({ method: 'GET', pathWithQuery: '/', tenantId: 'acme', role: 'MEMBER', secret: '' })).rejects.toThrow(RangeError);
    await expect(signRequest({ method: 'GET', pathWithQuery: '/', tenantId: 'a b', role: 'MEMBER', secret: SECRET })).rejects.toThrow(RangeError);
  });

  it('canonicalJson writes what the service writes for every parsed JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as unknown;
        expect(canonicalJson(parsed)).toBe(serviceCanonicalJson(parsed));
      }),
      { numRuns: 300 },
    );
    expect(canonicalJson(JSON.parse('{"b":1,"a":[true,null,-0,1e21],"10":"x","2":{"__proto__":"y"},"é":"\\u2028"}'))).toBe(
      '{"10":"x","2":{"__proto__":"y"},"a":[true,null,0,1e+21],"b":1,"é":"\u2028"}',
    );
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson(['\uD800'])).toThrow(TypeError);
  });

  it('imports nothing but its own files: no service code, no package, not even node:', () => {
    const sourceDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
    for (const file of readdirSync(sourceDir)) {
      const text = readFileSync(join(sourceDir, file), 'utf8');
      const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/g)].map((m) => m[1]!);
      const dynamic = [...text.matchAll(/\bimport\(\s*'([^']+)'/g)].map((m) => m[1]!);
      for (const specifier of [...specifiers, ...dynamic]) expect(`${file}: ${specifier}`).toMatch(/: \.\/[\w-]+\.js$/);
    }
  });
});
