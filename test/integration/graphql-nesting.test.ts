// Deeply nested documents and variables: every parse or validation failure is a 4xx GraphQL error,
// never a stack overflow answered 500. Real HTTP, Redis and the signed endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGraphqlHarness, type GraphqlHarness } from './graphql-support/graphql-harness.js';

/** `{ a { a { … } } }` with `levels` selection sets below the operation's. */
const nestedSelections = (levels: number) => `{ listPolicies ${'{ id '.repeat(levels)}${'}'.repeat(levels)} }`;
const nestedList = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

const LOAN_QUERY = `query($a: LoanApplication!, $p: LoanApplicant!) {
  evaluateLoanEligibility(application: $a, applicant: $p) { eligible }
}`;
const applicant = { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 };

let standard: GraphqlHarness;
let generous: GraphqlHarness;

beforeAll(async () => {
  standard = await startGraphqlHarness();
  // Size and token limits high enough that a 20,000-level document reaches the parser.
  generous = await startGraphqlHarness({ limits: { maxDocumentBytes: 1_048_576, maxTokens: 100_000 } });
}, 60_000);

afterAll(async () => {
  await standard?.close();
  await generous?.close();
});

function expectDepthRefusal(response: { status: number; body: { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> } }) {
  expect(response.status).toBe(400);
  expect(response.body.errors?.[0]?.extensions?.code).toBe('ERR_GRAPHQL_DEPTH_LIMIT');
  expect(response.body.errors?.[0]?.message).toContain('GRAPHQL_MAX_DEPTH');
  expect(JSON.stringify(response.body)).not.toContain('Maximum call stack');
}

describe('deeply nested GraphQL documents', () => {
  it('refuses selection sets nested 2,400 levels (7 KB) with the depth limit, under the default limits', async () => {
    const query = nestedSelections(2400);
    expect(Buffer.byteLength(query)).toBeLessThan(32_768);
    expectDepthRefusal(await standard.graphql(query));
  });

  it('refuses 2,400 and 20,000 levels with the depth limit when size and token limits let them reach the parser', async () => {
    expectDepthRefusal(await generous.graphql(nestedSelections(2400)));
    expectDepthRefusal(await generous.graphql(nestedSelections(20_000)));
  });

  it('refuses 20,000 levels under the default limits by size, also a 400', async () => {
    const response = await standard.graphql(nestedSelections(20_000));
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('ERR_GRAPHQL_DOCUMENT_TOO_LARGE');
  });

  it('refuses list values nested 5,000 levels in arguments, and deep input objects', async () => {
    expectDepthRefusal(await standard.graphql(`{ getPolicy(id: ${nestedList(5000)}) { id } }`));
    expectDepthRefusal(await generous.graphql(`{ getPolicy(id: ${nestedList(5000)}) { id } }`));
    const deepObject = `${'{a: '.repeat(5000)}1${'}'.repeat(5000)}`;
    expectDepthRefusal(await generous.graphql(`{ evaluateLoanEligibility(application: ${deepObject}, applicant: {}) { eligible } }`));
    expectDepthRefusal(await generous.graphql(`query($x: ${'['.repeat(5000)}Int${']'.repeat(5000)}) { listPolicies { id } }`));
  });

  it('still admits what the depth limit admits, with arguments at the deepest level', async () => {
    const response = await standard.graphql(
      `{ evaluateLoanEligibility(application: {requestedAmount: 20000, termMonths: 36, purpose: "CAR"}, applicant: {age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3}) { eligible } }`,
    );
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
  });

  it('answers a document nested just past the depth limit with the depth limit as before', async () => {
    const response = await standard.graphql(nestedSelections(20));
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('ERR_GRAPHQL_DEPTH_LIMIT');
  });
});

/** JSON text of a value nested `levels` deep (built as text: JSON.stringify itself overflows). */
const deepArrayJson = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
const deepObjectJson = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

async function postJson(h: GraphqlHarness, body: string) {
  const response = await h.signedFetch('/graphql', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  const text = await response.text();
  expect(text).not.toContain('Maximum call stack');
  return { status: response.status, body: JSON.parse(text) as { errors?: Array<{ extensions?: Record<string, unknown> }> } };
}

const applicantJson = JSON.stringify(applicant);

async function getWithVariables(h: GraphqlHarness, query: string, variablesJson: string) {
  const response = await h.signedFetch(`/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(variablesJson)}`, { method: 'GET' });
  const text = await response.text();
  expect(text).not.toContain('Maximum call stack');
  return { status: response.status, body: JSON.parse(text) as { errors?: Array<{ extensions?: Record<string, unknown> }> } };
}

describe('deeply nested variables and bodies', () => {
  it('refuses a POST body nested deeper than the JSON limit before GraphQL sees it', async () => {
    for (const h of [standard, generous]) {
      const body = `{"query":${JSON.stringify(LOAN_QUERY)},"variables":{"a":{"requestedAmount":${deepArrayJson(5000)},"termMonths":36,"purpose":"CAR"},"p":${applicantJson}}}`;
      const response = await postJson(h, body);
      expect(response.status).toBe(400);
      expect((response.body as Record<string, unknown>).code).toBe('ERR_REQUEST_JSON_TOO_DEEP');
    }
    expect((await postJson(standard, `{"query":"{ listPolicies { id } }","variables":{"x":${deepObjectJson(50_000)}}}`)).status).toBe(400);
    expect((await postJson(standard, deepArrayJson(100_000))).status).toBe(400);
  });

  it('refuses lists nested 1,500 levels in GET variables (the URL limit allows no more) as invalid variables', async () => {
    for (const h of [standard, generous]) {
      const response = await getWithVariables(h, LOAN_QUERY, `{"a":{"requestedAmount":${deepArrayJson(1500)},"termMonths":36,"purpose":"CAR"},"p":${applicantJson}}`);
      expect(response.status).toBe(400);
      expect(response.body.errors?.[0]?.extensions?.code).toBe('ERR_GRAPHQL_VARIABLES_INVALID');
    }
  });

  it('refuses input objects nested 400 levels in GET variables (as deep as the URL limit allows) as invalid variables', async () => {
    const response = await getWithVariables(standard, LOAN_QUERY, `{"a":${deepObjectJson(400)},"p":${applicantJson.slice(0, -1)},"extra":${deepObjectJson(400)}}}`);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('ERR_GRAPHQL_VARIABLES_INVALID');
  });

  it('ignores deep values of variables the operation does not declare', async () => {
    const response = await getWithVariables(standard, '{ listPolicies { id } }', `{"unused":${deepObjectJson(400)},"list":${deepArrayJson(1500)}}`);
    expect(response.status).toBe(200);
  });
});
