/**
 * The endpoint on the real policy registry: a tenant's deployed version answers that tenant's
 * decisions, other tenants keep the built-in one, policy reads stay within the tenant, and every
 * decision is audited.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGraphqlHarness, type GraphqlHarness } from './graphql-support/graphql-harness.js';

const LOAN = `evaluateLoanEligibility(
  application: { requestedAmount: 10000, termMonths: 24, purpose: "CAR" }
  applicant: { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 }
) { eligible interestRate }`;

const BUILTIN_LOAN = readFileSync(new URL('../../policies/lending.loan.policy', import.meta.url), 'utf8');
// acme's own version prices scores from 700 at 6.25% instead of 7.0%.
const ACME_LOAN = BUILTIN_LOAN.replace('Let rate be 7.0.', 'Let rate be 6.25.');

let h: GraphqlHarness;
let deployedIds: string[];
beforeAll(async () => {
  h = await startGraphqlHarness({ registry: true });
});
afterAll(async () => {
  await h.close();
});

describe('on the policy registry', () => {
  it('answers from the built-in module before a tenant deploys its own', async () => {
    expect(ACME_LOAN).not.toBe(BUILTIN_LOAN);
    const { body } = await h.graphql(`{ ${LOAN} }`);
    expect(body.data).toEqual({ evaluateLoanEligibility: { eligible: true, interestRate: 7 } });
  });

  it("answers from the tenant's active version once deployed, and only for that tenant", async () => {
    const deployed = await h.stack.catalog.deploy('acme', { source: ACME_LOAN, locale: 'en-US' }, 'signed:acme');
    deployedIds = deployed.policies.map((policy) => policy.id);
    expect((await h.graphql(`{ ${LOAN} }`, undefined, { tenant: 'acme' })).body.data).toEqual({
      evaluateLoanEligibility: { eligible: true, interestRate: 6.25 },
    });
    expect((await h.graphql(`{ ${LOAN} }`, undefined, { tenant: 'globex' })).body.data).toEqual({
      evaluateLoanEligibility: { eligible: true, interestRate: 7 },
    });
  });

  it('lists the deployed version as ACTIVE and the built-in one as SUPERSEDED for that tenant', async () => {
    const { body } = await h.graphql('{ listPolicies(size: 100) { id policyModule policyFunction version status } }', undefined, { role: 'VIEWER' });
    const loan = (body.data!.listPolicies as Array<{ policyModule: string; version: number; status: string }>).filter(
      (policy) => policy.policyModule === 'lending.loan',
    );
    expect(loan.map((policy) => [policy.version, policy.status]).sort()).toEqual([
      [0, 'SUPERSEDED'],
      [1, 'ACTIVE'],
    ]);
  });

  it("shows a deployed policy to its tenant and null to another", async () => {
    const id = deployedIds[0]!;
    const query = `{ getPolicy(id: ${JSON.stringify(id)}) { id version status source } }`;
    const own = await h.graphql(query, undefined, { tenant: 'acme', role: 'VIEWER' });
    expect(own.body.data).toEqual({ getPolicy: { id, version: 1, status: 'ACTIVE', source: ACME_LOAN } });
    const other = await h.graphql(query, undefined, { tenant: 'globex', role: 'VIEWER' });
    expect(other.body).toEqual({ data: { getPolicy: null } });
  });

  it('audits every decision as POLICY_EVALUATED of the signed actor', async () => {
    await h.stack.flush();
    const records = await h.store.audit.list('globex', { eventType: 'POLICY_EVALUATED', limit: 100 });
    expect(records.length).toBeGreaterThanOrEqual(1);
    expect(records[0]).toMatchObject({ policyModule: 'lending.loan', policyFunction: 'evaluateLoanEligibility', actorId: 'signed:globex' });
  });
});
