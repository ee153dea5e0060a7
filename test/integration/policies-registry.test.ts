// The policy registry end to end: deploy, versions, evaluation, rollback, audit and rollups, over
// real HTTP, Redis, worker threads and SQLite. Needs `npx tsc -p tsconfig.json` first (threads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minuteOf } from '../../src/evaluation/index.js';
import { failure, startPoliciesHarness, type PoliciesHarness } from './policies-support/policies-harness.js';

const PRICING_V1 = `Module acme.pricing.

Rule price given amount as Int, produce Int:
  Return amount times 2.

Rule check given amount as Int, produce Int:
  If amount is greater than 100:
    Fail with "amount too large".
  Return amount.
`;

const PRICING_V2 = PRICING_V1.replace('Return amount times 2.', 'Return amount times 3.');

const BROKEN = `Module acme.broken.

Rule f given x as Int, produce Int:
  Return x plus "one".
`;

interface Deployed {
  policyModule: string;
  version: number;
  versionId: string;
  status: string;
  builtin: boolean;
  sourceHash: string;
  functions: Array<{ name: string }>;
  policies: Array<{ id: string; policyFunction: string; status: string; version: number }>;
}

interface PolicyBody {
  id: string;
  policyModule: string;
  policyFunction: string;
  version: number;
  status: string;
  createdAt: string;
  updatedAt: string;
  /** Only on a policy read by its id. */
  source?: string;
  builtin: boolean;
}

interface PolicyPage {
  content: PolicyBody[];
  totalElements: number;
  totalPages: number;
  page: number;
  size: number;
}

interface Evaluated {
  result: unknown;
  error: string | null;
  code?: string;
  executionTimeMs: number;
  diagnostics: Array<{ code: string; message: string }>;
  version: number;
  versionId: string;
}

let h: PoliciesHarness;

beforeAll(async () => {
  h = await startPoliciesHarness();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('policy registry lifecycle', () => {
  let v1: Deployed;
  let v2: Deployed;
  const evaluate = (body: Record<string, unknown>) =>
    h.signed(h.tenants.a, 'MEMBER').request<Evaluated>('POST', '/api/v1/policies/evaluate', body);

  it('deploys version 1 of a module, active, one policy per rule', async () => {
    const response = await h.signed(h.tenants.a, 'ADMIN').request<Deployed>('POST', '/api/v1/policies', { source: PRICING_V1, locale: 'en-US' });
    expect(response.status).toBe(201);
    v1 = response.body;
    expect(v1).toMatchObject({ policyModule: 'acme.pricing', version: 1, versionId: 'acme.pricing@1', status: 'ACTIVE', builtin: false });
    expect(v1.functions.map((f) => f.name)).toEqual(['price', 'check']);
    expect(v1.policies.map((p) => [p.id, p.status])).toEqual([
      ['acme.pricing.price@1', 'ACTIVE'],
      ['acme.pricing.check@1', 'ACTIVE'],
    ]);
    // The source is the version's, not repeated per rule.
    expect(v1.policies.every((p) => !('source' in p))).toBe(true);
    const versions = await h.signed(h.tenants.a, 'VIEWER').request<{ content: Array<{ version: number; status: string }> }>('GET', '/api/v1/policies/acme.pricing/versions');
    expect(versions.body.content.map((v) => [v.version, v.status])).toEqual([[1, 'ACTIVE']]);
  });

  it('evaluates the active version', async () => {
    const { body } = await evaluate({ policyModule: 'acme.pricing', policyFunction: 'price', context: { amount: 21 } });
    expect(body).toMatchObject({ result: 42, error: null, version: 1, versionId: 'acme.pricing@1', diagnostics: [] });
  });

  it('deploys version 2, which supersedes version 1', async () => {
    const response = await h.signed(h.tenants.a, 'ADMIN').request<Deployed>('POST', '/api/v1/policies', { source: PRICING_V2, locale: 'en' });
    v2 = response.body;
    expect(v2).toMatchObject({ version: 2, status: 'ACTIVE' });
    expect(v2.sourceHash).not.toBe(v1.sourceHash);
    const versions = await h.signed(h.tenants.a, 'VIEWER').request<{ content: Array<{ version: number; status: string }> }>('GET', '/api/v1/policies/acme.pricing/versions');
    expect(versions.body.content.map((v) => [v.version, v.status])).toEqual([[1, 'SUPERSEDED'], [2, 'ACTIVE']]);
    const old = await h.signed(h.tenants.a, 'VIEWER').request<PolicyBody>('GET', '/api/v1/policies/acme.pricing.price@1');
    expect(old.body).toMatchObject({ id: 'acme.pricing.price@1', version: 1, status: 'SUPERSEDED', source: PRICING_V1, builtin: false });
    expect(Date.parse(old.body.updatedAt)).toBeGreaterThan(Date.parse(old.body.createdAt) - 1);
  });

  it('answers with version 2 by default and with version 1 when pinned', async () => {
    const active = await evaluate({ policyModule: 'acme.pricing', policyFunction: 'price', context: { amount: 21 } });
    expect(active.body).toMatchObject({ result: 63, version: 2 });
    const pinned = await evaluate({ policyModule: 'acme.pricing', policyFunction: 'price', version: 1, context: [21] });
    expect(pinned.body).toMatchObject({ result: 42, version: 1, versionId: 'acme.pricing@1' });
  });

  it('answers an evaluation failure with 200, the error and its diagnostics', async () => {
    const { status, body } = await evaluate({ policyModule: 'acme.pricing', policyFunction: 'check', context: { amount: 500 } });
    expect(status).toBe(200);
    expect(body.result).toBeNull();
    expect(body.error).toContain('amount too large');
    expect(body.diagnostics.length).toBeGreaterThan(0);
    expect(body.code).toBe(body.diagnostics[0]!.code);
    const badInput = await evaluate({ policyModule: 'acme.pricing', policyFunction: 'price', context: { amount: 'many' } });
    expect(badInput.status).toBe(200);
    expect(badInput.body.error).not.toBeNull();
  });

  it('answers 404 for an unknown module, rule or version and 400 for a malformed body', async () => {
    const client = h.signed(h.tenants.a, 'MEMBER');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ policyModule: 'acme.nothing', policyFunction: 'price', context: {} }, 'ERR_POLICY_NOT_FOUND'],
      [{ policyModule: 'acme.pricing', policyFunction: 'nope', context: {} }, 'ERR_POLICY_FUNCTION_NOT_FOUND'],
      [{ policyModule: 'acme.pricing', policyFunction: 'price', version: 9, context: {} }, 'ERR_POLICY_VERSION_NOT_FOUND'],
      [{ policyModule: 'acme.pricing', policyFunction: 'price', version: 0, context: {} }, 'ERR_POLICY_VERSION_NOT_FOUND'],
    ];
    for (const [body, code] of cases) {
      const refused = await failure(client.request('POST', '/api/v1/policies/evaluate', body));
      expect([refused.status, refused.code]).toEqual([404, code]);
      expect(refused.body).toMatchObject({ result: null, executionTimeMs: 0 });
    }
    const malformed = await failure(client.request('POST', '/api/v1/policies/evaluate', { policyModule: 'acme.pricing', policyFunction: 'price' }));
    expect([malformed.status, malformed.code, malformed.body.error]).toEqual([400, 'ERR_EVALUATION_REQUEST_INVALID', '`context` is required']);
    expect((await failure(client.request('GET', '/api/v1/policies/acme.pricing.price@7'))).status).toBe(404);
    expect((await failure(client.request('GET', '/api/v1/policies/not-an-id'))).status).toBe(404);
    // Names past the rule in UTF-16 units (the store's count), however few characters they look: a 400 or a 404, never the store's refusal.
    const wide = '\u{1F600}'.repeat(200);
    const wideByName = await failure(client.request('POST', '/api/v1/policies/evaluate', { policyModule: wide, policyFunction: 'price', context: {} }));
    expect([wideByName.status, wideByName.code]).toEqual([400, 'ERR_EVALUATION_REQUEST_INVALID']);
    expect((await failure(client.request('GET', `/api/v1/policies/${'m'.repeat(257)}.price@1`))).status).toBe(404);
    expect((await failure(client.request('GET', `/api/v1/policies/${encodeURIComponent(`acme.${wide}`)}.price@1`))).status).toBe(404);
    expect((await failure(client.request('GET', '/api/v1/policies/acme.nothing/versions'))).code).toBe('ERR_POLICY_NOT_FOUND');
  });

  it('rolls back to version 1 (ADMIN): version 1 answers again, version 2 is superseded; a second rollback is 409', async () => {
    const admin = h.signed(h.tenants.a, 'ADMIN');
    const rolled = await admin.request<Record<string, unknown>>('POST', '/api/v1/policies/acme.pricing/rollback', { version: 1 });
    expect(rolled.body).toMatchObject({ policyModule: 'acme.pricing', version: 1, versionId: 'acme.pricing@1', previousVersion: 2 });
    const versions = await admin.request<{ content: Array<{ version: number; status: string }> }>('GET', '/api/v1/policies/acme.pricing/versions');
    expect(versions.body.content.map((v) => [v.version, v.status])).toEqual([[1, 'ACTIVE'], [2, 'SUPERSEDED']]);
    expect((await evaluate({ policyModule: 'acme.pricing', policyFunction: 'price', context: { amount: 5 } })).body).toMatchObject({ result: 10, version: 1 });
    const again = await failure(admin.request('POST', '/api/v1/policies/acme.pricing/rollback', { version: 1 }));
    expect([again.status, again.code]).toEqual([409, 'ERR_POLICY_VERSION_ALREADY_ACTIVE']);
    expect((await failure(admin.request('POST', '/api/v1/policies/acme.pricing/rollback', { version: 3 }))).status).toBe(404);
    expect((await failure(admin.request('POST', '/api/v1/policies/acme.nothing/rollback', { version: 1 }))).status).toBe(404);
    expect((await failure(admin.request('POST', '/api/v1/policies/acme.pricing/rollback', { version: '1' }))).status).toBe(400);
  });

  it('records POLICY_DEPLOYED, POLICY_ROLLED_BACK and POLICY_EVALUATED with their payloads', async () => {
    const deployed = await h.auditOfType(h.tenants.a, 'POLICY_DEPLOYED');
    const pricingDeploys = deployed.filter((r) => r.policyModule === 'acme.pricing');
    expect(pricingDeploys.map((r) => r.payload)).toEqual([
      {
        policyModule: 'acme.pricing', version: 1, versionId: 'acme.pricing@1', functions: ['price', 'check'],
        sourceHash: v1.sourceHash, locale: 'en-US', activated: true, previousVersion: null,
      },
      {
        policyModule: 'acme.pricing', version: 2, versionId: 'acme.pricing@2', functions: ['price', 'check'],
        sourceHash: v2.sourceHash, locale: 'en-US', activated: true, previousVersion: 1,
      },
    ]);
    expect(pricingDeploys[0]!.actorId).toBe(`signed:${h.tenants.a.tenantId}`);
    const rolledBack = await h.auditOfType(h.tenants.a, 'POLICY_ROLLED_BACK');
    expect(rolledBack.map((r) => [r.policyModule, r.payload])).toEqual([
      ['acme.pricing', { policyModule: 'acme.pricing', version: 1, versionId: 'acme.pricing@1', previousVersion: 2, previousVersionId: 'acme.pricing@2' }],
    ]);
    const evaluated = (await h.auditOfType(h.tenants.a, 'POLICY_EVALUATED')).filter((r) => r.policyModule === 'acme.pricing');
    expect(evaluated.map((r) => [r.policyFunction, r.payload.versionId, r.payload.success])).toEqual([
      ['price', 'acme.pricing@1', true],
      ['price', 'acme.pricing@2', true],
      ['price', 'acme.pricing@1', true],
      ['check', 'acme.pricing@2', false],
      ['price', 'acme.pricing@2', false],
      ['price', 'acme.pricing@1', true],
    ]);
    const failed = evaluated[3]!.payload;
    expect(failed).toMatchObject({ policyModule: 'acme.pricing', policyFunction: 'check', version: 2, success: false });
    expect(String(failed.error)).toContain('amount too large');
    expect(typeof failed.executionTimeMs).toBe('number');
    // Requests that were refused (404) evaluated nothing and recorded nothing.
    expect(evaluated).toHaveLength(6);
  });

  it('counts every evaluation in the per-minute rollups, with failures', async () => {
    const now = new Date();
    const buckets = await h.store.rollups.range(h.tenants.a.tenantId, {
      from: minuteOf(new Date(now.getTime() - 10 * 60_000)),
      to: minuteOf(now),
      policyModule: 'acme.pricing',
    });
    const totals = new Map<string, { count: number; failures: number }>();
    for (const b of buckets) {
      const key = `${b.policyFunction}@${b.version}`;
      const t = totals.get(key) ?? { count: 0, failures: 0 };
      totals.set(key, { count: t.count + b.count, failures: t.failures + b.failures });
      expect(b.max).toBeGreaterThanOrEqual(0);
      expect(b.timeSum).toBeGreaterThanOrEqual(b.max);
    }
    expect(Object.fromEntries(totals)).toEqual({
      'check@2': { count: 1, failures: 1 },
      'price@1': { count: 3, failures: 0 },
      'price@2': { count: 2, failures: 1 },
    });
  });

  it('lists the tenant policies after the built-in library in pages, without sources, filterable by module and status', async () => {
    const client = h.signed(h.tenants.a, 'VIEWER');
    const pricing = (await client.request<PolicyPage>('GET', '/api/v1/policies?policyModule=acme.pricing')).body;
    expect(pricing.content.map((p) => [p.id, p.status])).toEqual([
      ['acme.pricing.price@1', 'ACTIVE'],
      ['acme.pricing.check@1', 'ACTIVE'],
      ['acme.pricing.price@2', 'SUPERSEDED'],
      ['acme.pricing.check@2', 'SUPERSEDED'],
    ]);
    expect(pricing).toMatchObject({ totalElements: 4, totalPages: 1, page: 0, size: 20 });
    expect(pricing.content.every((p) => !('source' in p))).toBe(true);

    // Every page in turn: the built-in library (version 0) first, then the tenant's own; the pages add up to the total.
    const first = (await client.request<PolicyPage>('GET', '/api/v1/policies?size=7')).body;
    expect(first).toMatchObject({ page: 0, size: 7, totalPages: Math.ceil(first.totalElements / 7) });
    const all: PolicyBody[] = [];
    for (let page = 0; page < first.totalPages; page += 1) {
      all.push(...(await client.request<PolicyPage>('GET', `/api/v1/policies?size=7&page=${page}`)).body.content);
    }
    expect(all).toHaveLength(first.totalElements);
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    const firstOwn = all.findIndex((p) => !p.builtin);
    expect(all.slice(0, firstOwn).every((p) => p.builtin && p.version === 0)).toBe(true);
    expect(all.slice(firstOwn).every((p) => !p.builtin)).toBe(true);
    expect(all.find((p) => p.id === 'insurance.life.calculateLifeRiskScore@0')).toMatchObject({ builtin: true, version: 0, status: 'ACTIVE', policyModule: 'insurance.life' });
    expect((await client.request<PolicyPage>('GET', `/api/v1/policies?size=7&page=${first.totalPages}`)).body.content).toEqual([]);

    const active = (await client.request<PolicyPage>('GET', '/api/v1/policies?policyModule=acme.pricing&status=ACTIVE')).body;
    expect(active.content.map((p) => p.id)).toEqual(['acme.pricing.price@1', 'acme.pricing.check@1']);
    expect(active.totalElements).toBe(2);
    for (const query of ['status=GONE', 'size=101', 'size=0', 'page=-1', 'page=1000001', 'size=2&size=3']) {
      const refused = await failure(client.request('GET', `/api/v1/policies?${query}`));
      expect([refused.status, refused.code], query).toEqual([400, 'ERR_REQUEST_QUERY_INVALID']);
    }
  });
});

describe('deploy refusals and roles', () => {
  it('refuses source that does not compile with 400 and the diagnostics, storing nothing', async () => {
    const refused = await failure(h.signed(h.tenants.a, 'ADMIN').request('POST', '/api/v1/policies', { source: BROKEN, locale: 'en-US' }));
    expect([refused.status, refused.code]).toEqual([400, 'ERR_POLICY_COMPILE']);
    expect(refused.body).toMatchObject({ result: null, executionTimeMs: 0 });
    const diagnostics = refused.body.diagnostics as Array<{ code: string; severity: string; message: string; span: { line: number } | null }>;
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics[0]).toMatchObject({ severity: 'error', span: { line: 4 } });
    expect(diagnostics[0]!.code).toMatch(/^PL\d{4}$/);
    const unsupported = await failure(h.signed(h.tenants.a, 'ADMIN').request('POST', '/api/v1/policies', { source: PRICING_V1, locale: 'fr-FR' }));
    expect((unsupported.body.diagnostics as Array<{ code: string }>).map((d) => d.code)).toEqual(['PL6001']);
    expect((await failure(h.signed(h.tenants.a, 'VIEWER').request('GET', '/api/v1/policies/acme.broken/versions'))).status).toBe(404);
    const noSource = await failure(h.signed(h.tenants.a, 'ADMIN').request('POST', '/api/v1/policies', { locale: 'en-US' }));
    expect([noSource.status, noSource.code]).toEqual([400, 'ERR_POLICY_REQUEST_INVALID']);
  });

  it('requires ADMIN to deploy and roll back, MEMBER to evaluate, VIEWER to read — signed or with a bearer token', async () => {
    const a = h.tenants.a;
    const deploy = { source: PRICING_V1.replace('acme.pricing', 'acme.roles'), locale: 'en-US' };
    expect((await failure(h.signed(a, 'VIEWER').request('POST', '/api/v1/policies', deploy))).status).toBe(403);
    expect((await failure((await h.bearer(a, 'VIEWER')).request('POST', '/api/v1/policies', deploy))).status).toBe(403);
    // A MEMBER may start only a shadow rollout: an active deploy is refused, and nothing is stored.
    expect(await failure(h.signed(a, 'MEMBER').request('POST', '/api/v1/policies', deploy))).toMatchObject({ status: 403, code: 'ERR_AUTH_ROLE_INSUFFICIENT' });
    expect(await failure((await h.bearer(a, 'MEMBER')).request('POST', '/api/v1/policies', deploy))).toMatchObject({ status: 403, code: 'ERR_AUTH_ROLE_INSUFFICIENT' });
    expect((await failure(h.signed(a, 'VIEWER').request('GET', '/api/v1/policies/acme.roles/versions'))).status).toBe(404);
    expect((await (await h.bearer(a, 'ADMIN')).request('POST', '/api/v1/policies', deploy)).status).toBe(201);
    const evaluate = { policyModule: 'acme.roles', policyFunction: 'price', context: { amount: 1 } };
    expect((await failure(h.signed(a, 'VIEWER').request('POST', '/api/v1/policies/evaluate', evaluate))).status).toBe(403);
    expect((await (await h.bearer(a, 'MEMBER')).request('POST', '/api/v1/policies/evaluate', evaluate)).body).toMatchObject({ result: 2 });
    await (await h.bearer(a, 'ADMIN')).request('POST', '/api/v1/policies', { ...deploy, source: deploy.source.replace('times 2', 'times 5') });
    const rollback = { version: 1 };
    expect((await failure(h.signed(a, 'MEMBER').request('POST', '/api/v1/policies/acme.roles/rollback', rollback))).status).toBe(403);
    expect((await failure((await h.bearer(a, 'MEMBER')).request('POST', '/api/v1/policies/acme.roles/rollback', rollback))).status).toBe(403);
    expect((await (await h.bearer(a, 'ADMIN')).request('POST', '/api/v1/policies/acme.roles/rollback', rollback)).status).toBe(200);
    expect((await (await h.bearer(a, 'VIEWER')).request('GET', '/api/v1/policies/acme.roles/versions')).status).toBe(200);
    // The actor of a bearer request is the token's subject.
    const rolledBack = (await h.auditOfType(a, 'POLICY_ROLLED_BACK')).filter((r) => r.policyModule === 'acme.roles');
    expect(rolledBack.map((r) => r.actorId)).toEqual([`user-of-${a.tenantId}`]);
  });

  it('answers 405 with Allow for a wrong method on an action path, though GET /api/v1/policies/:id would take it', async () => {
    for (const [path, method] of [
      ['/api/v1/policies/evaluate-source', 'GET'],
      ['/api/v1/policies/evaluate', 'GET'],
      ['/api/v1/policies/evaluate-source/batch', 'PUT'],
      // The router takes a path in any case and with a trailing slash: so does the refusal.
      ['/api/v1/policies/evaluate/', 'GET'],
      ['/API/V1/Policies/Evaluate-Source', 'DELETE'],
    ] as const) {
      const response = await fetch(`${h.baseUrl}${path}`, { method, headers: { 'x-tenant-id': h.tenants.a.tenantId } });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(((await response.json()) as { code: string }).code).toBe('ERR_ROUTE_METHOD_NOT_ALLOWED');
    }
    // A policy id is still read through the parameter route.
    const read = await fetch(`${h.baseUrl}/api/v1/policies/acme.pricing.nothing`, { headers: { 'x-tenant-id': h.tenants.a.tenantId } });
    expect(read.status).not.toBe(405);
  });

  it('names both ways to authenticate when a request carries neither', async () => {
    const response = await fetch(`${h.baseUrl}/api/v1/policies/evaluate`, {
      method: 'POST',
      headers: { 'x-tenant-id': h.tenants.a.tenantId, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { code: string; error: string };
    expect(body.code).toBe('ERR_AUTH_SIGNATURE_MISSING');
    expect(body.error).toContain('X-Policy-Signature');
    expect(body.error).toContain('Authorization: Bearer');
  });

  it('refuses a bad signature and a missing tenant header before anything else', async () => {
    const forged = await failure(
      h.signed({ tenantId: h.tenants.a.tenantId, secret: 'not-the-secret' }, 'ADMIN').request('POST', '/api/v1/policies', { source: PRICING_V1 }),
    );
    expect(forged.status).toBe(403);
    const response = await fetch(`${h.baseUrl}/api/v1/policies`);
    expect(response.status).toBe(400);
  });
});

describe('tenant scope and the built-in library', () => {
  const LIFE_OVERRIDE = `Module insurance.life.

Define LifeInsuranceApplicant has name as Text, age as Int, smoker as Bool, bmi as Float, healthScore as Int, occupationRisk as Text, familyHistory as Bool.
Define LifeRiskScore has score as Int, band as Text, factors as List of Text.

Rule calculateLifeRiskScore given applicant as LifeInsuranceApplicant, produce LifeRiskScore:
  Return LifeRiskScore with score set to 99, band set to "TENANT", factors set to ["tenant override"].
`;
  const applicant = { name: 'Ann', age: 30, smoker: false, bmi: 22.5, healthScore: 90, occupationRisk: 'LOW', familyHistory: false };
  const lifeScore = (tenant: PoliciesHarness['tenants']['a'], version?: number) =>
    h.signed(tenant, 'MEMBER').request<Evaluated>('POST', '/api/v1/policies/evaluate', {
      policyModule: 'insurance.life',
      policyFunction: 'calculateLifeRiskScore',
      context: { applicant },
      ...(version !== undefined ? { version } : {}),
    });

  it('hides one tenant’s policies from another: 404 on read, evaluate, versions and rollback', async () => {
    const { a, b } = h.tenants;
    await h.signed(a, 'ADMIN').request('POST', '/api/v1/policies', { source: PRICING_V1.replace('acme.pricing', 'acme.secret'), locale: 'en-US' });
    const client = h.signed(b, 'ADMIN');
    expect((await failure(client.request('GET', '/api/v1/policies/acme.secret.price@1'))).status).toBe(404);
    const evaluate = await failure(client.request('POST', '/api/v1/policies/evaluate', { policyModule: 'acme.secret', policyFunction: 'price', context: [1] }));
    expect([evaluate.status, evaluate.code]).toEqual([404, 'ERR_POLICY_NOT_FOUND']);
    expect((await failure(client.request('GET', '/api/v1/policies/acme.secret/versions'))).status).toBe(404);
    expect((await failure(client.request('POST', '/api/v1/policies/acme.secret/rollback', { version: 1 }))).status).toBe(404);
    const listed = (await client.request<PolicyPage>('GET', '/api/v1/policies?size=100')).body;
    expect(listed.totalElements).toBe(listed.content.length);
    expect(listed.content.filter((p) => !p.builtin)).toEqual([]);
    expect(listed.content.length).toBeGreaterThan(0);
    expect((await client.request<PolicyPage>('GET', '/api/v1/policies?policyModule=acme.secret')).body.totalElements).toBe(0);
    // Tenant B's first deploy of the same module name is B's own version 1.
    const own = await h.signed(b, 'ADMIN').request<Deployed>('POST', '/api/v1/policies', { source: PRICING_V2.replace('acme.pricing', 'acme.secret'), locale: 'en-US' });
    expect(own.body.version).toBe(1);
    const answers = await Promise.all(
      [a, b].map((t) => h.signed(t, 'MEMBER').request<Evaluated>('POST', '/api/v1/policies/evaluate', { policyModule: 'acme.secret', policyFunction: 'price', context: [1] })),
    );
    expect(answers.map((r) => r.body.result)).toEqual([2, 3]);
  });

  it('answers a built-in module for every tenant until a tenant deploys its own, for that tenant only', async () => {
    const { a, b } = h.tenants;
    const before = await lifeScore(a);
    expect(before.body).toMatchObject({ version: 0, versionId: 'insurance.life@0', error: null });
    expect((before.body.result as { band: string }).band).not.toBe('TENANT');

    const deployed = await h.signed(a, 'ADMIN').request<Deployed>('POST', '/api/v1/policies', { source: LIFE_OVERRIDE, locale: 'en-US' });
    expect(deployed.body).toMatchObject({ policyModule: 'insurance.life', version: 1, status: 'ACTIVE' });
    expect((await lifeScore(a)).body).toMatchObject({ result: { score: 99, band: 'TENANT' }, version: 1 });
    expect((await lifeScore(b)).body).toMatchObject({ version: 0, result: before.body.result });
    // Tenant A can still pin the built-in; its policies show as superseded for A only.
    expect((await lifeScore(a, 0)).body.result).toEqual(before.body.result);
    const builtinForA = await h.signed(a, 'VIEWER').request<PolicyBody>('GET', '/api/v1/policies/insurance.life.calculateLifeRiskScore@0');
    const builtinForB = await h.signed(b, 'VIEWER').request<PolicyBody>('GET', '/api/v1/policies/insurance.life.calculateLifeRiskScore@0');
    expect([builtinForA.body.status, builtinForB.body.status]).toEqual(['SUPERSEDED', 'ACTIVE']);
    const versions = await h.signed(a, 'VIEWER').request<{ content: Array<{ version: number; status: string; builtin: boolean }> }>('GET', '/api/v1/policies/insurance.life/versions');
    expect(versions.body.content.map((v) => [v.version, v.status, v.builtin])).toEqual([[0, 'SUPERSEDED', true], [1, 'ACTIVE', false]]);
    // In pages: the built-in version first; one version by its number.
    const paged = await Promise.all([0, 1, 2].map(async (page) => (await h.signed(a, 'VIEWER').request<{ content: Array<{ version: number }>; totalElements: number }>('GET', `/api/v1/policies/insurance.life/versions?size=1&page=${page}`)).body));
    expect(paged.map((p) => [p.totalElements, p.content.map((v) => v.version)])).toEqual([[2, [0]], [2, [1]], [2, []]]);
    const one = await h.signed(a, 'VIEWER').request<{ version: number; status: string; functions: unknown[] }>('GET', '/api/v1/policies/insurance.life/versions/1');
    expect(one.body).toMatchObject({ version: 1, status: 'ACTIVE', builtin: false, policyModule: 'insurance.life' });
    expect(one.body).not.toHaveProperty('source');
    expect((await h.signed(b, 'VIEWER').request<{ status: string }>('GET', '/api/v1/policies/insurance.life/versions/0')).body.status).toBe('ACTIVE');
    const missing = await failure(h.signed(b, 'VIEWER').request('GET', '/api/v1/policies/insurance.life/versions/1'));
    expect([missing.status, missing.code]).toEqual([404, 'ERR_POLICY_VERSION_NOT_FOUND']);
    expect((await failure(h.signed(a, 'VIEWER').request('GET', '/api/v1/policies/insurance.life/versions?size=101'))).status).toBe(400);
    const deployAudit = (await h.auditOfType(a, 'POLICY_DEPLOYED')).find((r) => r.policyModule === 'insurance.life');
    expect(deployAudit?.payload).toMatchObject({ version: 1, previousVersion: 0, activated: true });

    // Rolling back to version 0 returns tenant A to the built-in module.
    await h.signed(a, 'ADMIN').request('POST', '/api/v1/policies/insurance.life/rollback', { version: 0 });
    expect((await lifeScore(a)).body).toMatchObject({ version: 0, result: before.body.result });
    expect((await failure(h.signed(b, 'ADMIN').request('POST', '/api/v1/policies/insurance.life/rollback', { version: 0 }))).status).toBe(409);
  });
});

describe('batch items naming deployed policies', () => {
  it('evaluates stored references beside source items, each failing on its own, and audits them', async () => {
    const a = h.tenants.a;
    await h.signed(a, 'ADMIN').request('POST', '/api/v1/policies', { source: PRICING_V1.replace('acme.pricing', 'acme.batch'), locale: 'en-US' });
    const batch = await h.signed(a, 'MEMBER').request<{ results: Evaluated[] }>('POST', '/api/v1/policies/evaluate-source/batch', {
      items: [
        { policyModule: 'acme.batch', policyFunction: 'price', context: { amount: 4 } },
        { source: PRICING_V2, functionName: 'price', context: { amount: 4 }, locale: 'en-US' },
        { policyModule: 'acme.batch', policyFunction: 'missing', context: {} },
        { policyModule: 'acme.batch', policyFunction: 'check', version: 1, context: { amount: 1000 } },
        { policyModule: 'lending.loan', policyFunction: 'evaluateLoanEligibility', context: [
          { requestedAmount: 1000, termMonths: 12, purpose: 'CAR' },
          { age: 17, annualIncome: 30_000, creditScore: 700, monthlyDebt: 0, yearsEmployed: 2 },
        ] },
      ],
    });
    const [stored, source, missing, failing, builtin] = batch.body.results;
    expect(stored).toMatchObject({ result: 8, error: null });
    expect(source).toMatchObject({ result: 12, error: null });
    expect(missing).toMatchObject({ result: null, code: 'ERR_POLICY_FUNCTION_NOT_FOUND', executionTimeMs: 0 });
    expect(failing!.error).toContain('amount too large');
    expect(builtin).toMatchObject({ result: { eligible: false, rejectionReasons: ['applicant under 18'] } });
    const evaluated = (await h.auditOfType(a, 'POLICY_EVALUATED')).slice(-3);
    expect(evaluated.map((r) => [r.policyModule, r.policyFunction, r.payload.versionId, r.payload.success])).toEqual([
      ['acme.batch', 'price', 'acme.batch@1', true],
      ['acme.batch', 'check', 'acme.batch@1', false],
      ['lending.loan', 'evaluateLoanEligibility', 'lending.loan@0', true],
    ]);
  });
});
