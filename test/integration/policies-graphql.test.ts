// The registry behind the GraphQL endpoint: createPolicyLookup answers getPolicy/listPolicies and
// createDomainDecider the domain queries, per tenant, with every decision audited and counted.
// Real HTTP, Redis, worker threads and SQLite; needs `npx tsc -p tsconfig.json` first (threads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minuteOf } from '../../src/evaluation/index.js';
import { graphqlRoutes, startPoliciesHarness, type PoliciesHarness } from './policies-support/policies-harness.js';

const LIFE_OVERRIDE = `Module insurance.life.

Define LifeInsuranceApplicant has name as Text, age as Int, smoker as Bool, bmi as Float, healthScore as Int, occupationRisk as Text, familyHistory as Bool.
Define LifeRiskScore has score as Int, band as Text, factors as List of Text.

Rule calculateLifeRiskScore given applicant as LifeInsuranceApplicant, produce LifeRiskScore:
  Return LifeRiskScore with score set to applicant.age, band set to "TENANT", factors set to [applicant.name].
`;

const RISK_QUERY = `query Risk($applicant: LifeInsuranceApplicant!) {
  calculateLifeRiskScore(applicant: $applicant) { score band factors }
}`;
const applicant = { name: 'Ann', age: 61, smoker: true, bmi: 22.5, healthScore: 90, occupationRisk: 'LOW', familyHistory: false };

let h: PoliciesHarness;

beforeAll(async () => {
  h = await startPoliciesHarness({ extraRoutes: graphqlRoutes });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('GraphQL through the policy registry', () => {
  it('answers domain queries with the built-in library until the tenant deploys its own module', async () => {
    const { a, b } = h.tenants;
    const before = await h.signed(a, 'MEMBER').graphql<{ calculateLifeRiskScore: { band: string; factors: string[] } }>(RISK_QUERY, { applicant });
    expect(before.ok).toBe(true);
    expect(before.data?.calculateLifeRiskScore.factors).toEqual(['age 60 or over', 'smoker']);

    await h.signed(a, 'ADMIN').request('POST', '/api/v1/policies', { source: LIFE_OVERRIDE, locale: 'en-US' });
    const mine = await h.signed(a, 'MEMBER').graphql(RISK_QUERY, { applicant });
    expect(mine.data).toEqual({ calculateLifeRiskScore: { score: 61, band: 'TENANT', factors: ['Ann'] } });
    const theirs = await h.signed(b, 'MEMBER').graphql(RISK_QUERY, { applicant });
    expect(theirs.data).toEqual(before.data);

    const audited = (await h.auditOfType(a, 'POLICY_EVALUATED')).filter((r) => r.policyFunction === 'calculateLifeRiskScore');
    expect(audited.map((r) => [r.payload.versionId, r.payload.success, r.actorId])).toEqual([
      ['insurance.life@0', true, `signed:${a.tenantId}`],
      ['insurance.life@1', true, `signed:${a.tenantId}`],
    ]);
    const buckets = await h.store.rollups.range(b.tenantId, {
      from: minuteOf(new Date(Date.now() - 10 * 60_000)),
      to: minuteOf(new Date()),
      policyModule: 'insurance.life',
    });
    expect(buckets.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(1);
    expect(buckets.every((bucket) => bucket.version === 0)).toBe(true);
  });

  it('lists and reads the tenant’s policies and the built-in ones, never another tenant’s', async () => {
    const { a, b } = h.tenants;
    await h.signed(b, 'ADMIN').request('POST', '/api/v1/policies', {
      source: 'Module globex.only.\n\nRule one produce Int:\n  Return 1.\n',
      locale: 'en-US',
    });
    const list = await h.signed(a, 'VIEWER').graphql<{ listPolicies: Array<{ id: string; version: number; status: string }> }>(
      '{ listPolicies(size: 100) { id version status } }',
    );
    const ids = list.data!.listPolicies.map((p) => p.id);
    expect(ids).toContain('insurance.life.calculateLifeRiskScore@1');
    expect(ids).toContain('lending.loan.evaluateLoanEligibility@0');
    expect(ids.some((id) => id.startsWith('globex.only.'))).toBe(false);
    expect(list.data!.listPolicies.find((p) => p.id === 'insurance.life.calculateLifeRiskScore@0')?.status).toBe('SUPERSEDED');

    const get = `query Get($id: ID!) { getPolicy(id: $id) { id policyModule policyFunction version status source } }`;
    const own = await h.signed(b, 'VIEWER').graphql<{ getPolicy: Record<string, unknown> | null }>(get, { id: 'globex.only.one@1' });
    expect(own.data?.getPolicy).toMatchObject({ policyModule: 'globex.only', policyFunction: 'one', version: 1, status: 'ACTIVE' });
    const foreign = await h.signed(a, 'VIEWER').graphql<{ getPolicy: unknown }>(get, { id: 'globex.only.one@1' });
    expect(foreign.data?.getPolicy).toBeNull();
  });

  it("pages listPolicies (the first page without arguments) and answers each listed policy's source from its version", async () => {
    const { b } = h.tenants;
    const source = 'Module globex.paged.\n\nRule one produce Int:\n  Return 1.\n\nRule two produce Int:\n  Return 2.\n';
    await h.signed(b, 'ADMIN').request('POST', '/api/v1/policies', { source, locale: 'en-US' });
    const rest = await h.signed(b, 'VIEWER').request<{ totalElements: number }>('GET', '/api/v1/policies');
    const firstPage = await h.signed(b, 'VIEWER').graphql<{ listPolicies: Array<{ id: string }> }>('{ listPolicies { id } }');
    expect(firstPage.data!.listPolicies).toHaveLength(20);
    // The tenant's own come after the built-in library: the last page holds them.
    const last = Math.floor((rest.body.totalElements - 1) / 10);
    const page = await h.signed(b, 'VIEWER').graphql<{ listPolicies: Array<{ id: string; source: string }> }>(
      'query ($page: Int) { listPolicies(page: $page, size: 10) { id source } }',
      { page: last },
    );
    const own = page.data!.listPolicies.filter((p) => p.id.startsWith('globex.paged.'));
    expect(own).toEqual([
      { id: 'globex.paged.one@1', source },
      { id: 'globex.paged.two@1', source },
    ]);
  });
});
