import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGraphqlHarness, type GraphqlHarness } from './graphql-support/graphql-harness.js';

let h: GraphqlHarness;
beforeAll(async () => { h = await startGraphqlHarness(); });
afterAll(async () => { await h.close(); });

it('smoke', async () => {
  const r = await h.graphql(`{ __typename a: evaluateLoanEligibility(application: {requestedAmount: 10000, termMonths: 24, purpose: "CAR"}, applicant: {age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3}) { eligible maxApprovedAmount interestRate term conditions rejectionReasons } b: generateAutoQuote(driver: {age: 30, yearsLicensed: 10, accidents: 0, violations: 0, creditScore: 700}, vehicle: {ageYears: 3, value: 20000, safetyRating: 5, usage: "X"}, coverageType: "STANDARD") { annualPremium } }`);
  console.log(r.status, JSON.stringify(r.body, null, 1));
  const g = await h.signedFetch('/graphql?query=' + encodeURIComponent('{ listPolicies { id } }'), { method: 'GET', role: 'VIEWER' });
  console.log(g.status, await g.text());
  const m = await h.signedFetch('/graphql?query=' + encodeURIComponent('mutation { x }'), { method: 'GET', role: 'VIEWER' });
  console.log(m.status, m.headers.get('allow'), await m.text());
  const v = await h.graphql('{ evaluateLoanEligibility(application: {requestedAmount: 1, termMonths: 1, purpose: "A"}, applicant: {age: 1, annualIncome: 1, creditScore: 1, monthlyDebt: 1, yearsEmployed: 1}) { eligible } }', undefined, { role: 'VIEWER' });
  console.log(v.status, JSON.stringify(v.body));
  const bad = await h.graphql('{ listPolicies { id } }', undefined, { secret: 'wrong' });
  console.log(bad.status, JSON.stringify(bad.body));
  expect(r.status).toBe(200);
});
