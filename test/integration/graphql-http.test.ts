/**
 * The GraphQL endpoint over real signed HTTP: authentication (replay, expiry, forgery, tenants,
 * roles), the read-only rule, request limits, partial results and how failures are reported.
 */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/request-signature.js';
import { DependencyUnavailableError } from '../../src/errors/index.js';
import type { PolicyView } from '../../src/graphql/index.js';
import { EvaluationQueueError } from '../../src/evaluation/index.js';
import { TENANTS, startGraphqlHarness, type GraphqlHarness } from './graphql-support/graphql-harness.js';

const POLICIES: PolicyView[] = [
  {
    id: 'pol-acme-loan-2',
    tenantId: 'acme',
    policyModule: 'lending.loan',
    policyFunction: 'evaluateLoanEligibility',
    version: 2,
    status: 'ACTIVE',
    createdAt: '2026-01-02T03:04:05.000Z',
    updatedAt: '2026-01-03T03:04:05.000Z',
    source: 'Module lending.loan.\n',
  },
  {
    id: 'pol-acme-loan-1',
    tenantId: 'acme',
    policyModule: 'lending.loan',
    policyFunction: 'evaluateLoanEligibility',
    version: 1,
    status: 'SUPERSEDED',
    createdAt: '2026-01-01T03:04:05.000Z',
    updatedAt: '2026-01-02T03:04:05.000Z',
    source: 'Module lending.loan.\n',
  },
  {
    id: 'pol-globex-auto-1',
    tenantId: 'globex',
    policyModule: 'insurance.auto',
    policyFunction: 'generateAutoQuote',
    version: 1,
    status: 'ACTIVE',
    createdAt: '2026-02-01T00:00:00.000Z',
    updatedAt: '2026-02-01T00:00:00.000Z',
    source: 'Module insurance.auto.\n',
  },
];

const LOAN = `evaluateLoanEligibility(
  application: { requestedAmount: 10000, termMonths: 24, purpose: "CAR" }
  applicant: { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 }
) { eligible maxApprovedAmount }`;
const BAD_AUTO = `generateAutoQuote(
  driver: { age: 40, yearsLicensed: 20, accidents: 0, violations: 0, creditScore: 700 }
  vehicle: { ageYears: 5, value: 20000, safetyRating: 3, usage: "PERSONAL" }
  coverageType: "PLATINUM"
) { annualPremium }`;

const now = () => Math.floor(Date.now() / 1000);

let h: GraphqlHarness;
beforeAll(async () => {
  h = await startGraphqlHarness({ policies: POLICIES });
});
afterAll(async () => {
  await h.close();
});

/** The service envelope plus a GraphQL-shaped error: what refusals before the GraphQL layer carry. */
function expectRefusal(received: unknown, code: string) {
  const body = received as Record<string, unknown>;
  expect(body).toMatchObject({ result: null, code, executionTimeMs: 0, errors: [{ extensions: { code } }] });
  expect((body.errors as Array<{ message: string }>)[0]!.message).toBe(body.error);
}

describe('signed requests', () => {
  const query = JSON.stringify({ query: '{ listPolicies { id } }' });

  it('answers a correctly signed request', async () => {
    const response = await h.signedFetch('/graphql', { body: query, role: 'VIEWER' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { listPolicies: [{ id: 'pol-acme-loan-2' }, { id: 'pol-acme-loan-1' }] } });
  });

  it('refuses a replayed request: the same nonce twice', async () => {
    const nonce = `replay-${Date.now()}-abcdefgh`;
    const first = await h.signedFetch('/graphql', { body: query, nonce });
    expect(first.status).toBe(200);
    const replay = await h.signedFetch('/graphql', { body: query, nonce });
    expect(replay.status).toBe(403);
    expectRefusal(await replay.json(), 'ERR_AUTH_NONCE_REUSED');
  });

  it('keeps nonces per tenant: another tenant may use the same one', async () => {
    const nonce = `shared-${Date.now()}-abcdefgh`;
    expect((await h.signedFetch('/graphql', { body: query, nonce, tenant: 'acme' })).status).toBe(200);
    expect((await h.signedFetch('/graphql', { body: query, nonce, tenant: 'globex' })).status).toBe(200);
  });

  it.each([
    ['5 minutes and 1 second old', -301],
    ['5 minutes and 1 second ahead', 301],
    ['a day old', -86_400],
  ])('refuses a timestamp %s', async (_title, offset) => {
    const response = await h.signedFetch('/graphql', { body: query, timestamp: now() + offset });
    expect(response.status).toBe(403);
    expectRefusal(await response.json(), 'ERR_AUTH_TIMESTAMP_STALE');
  });

  it('accepts a timestamp inside the window', async () => {
    const response = await h.signedFetch('/graphql', { body: query, timestamp: now() - 250 });
    expect(response.status).toBe(200);
  });

  it('refuses a signature made with another secret', async () => {
    const response = await h.signedFetch('/graphql', { body: query, secret: 'not-the-acme-secret' });
    expect(response.status).toBe(403);
    expectRefusal(await response.json(), 'ERR_AUTH_SIGNATURE_INVALID');
  });

  it('refuses a body changed after signing', async () => {
    const signed = signRequest({ method: 'POST', pathWithQuery: '/graphql', body: query, tenantId: 'acme', role: 'MEMBER', secret: TENANTS.acme });
    const response = await fetch(`${h.baseUrl}/graphql`, {
      method: 'POST',
      headers: { ...signed, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ ${LOAN} }` }),
    });
    expect(response.status).toBe(403);
    expectRefusal(await response.json(), 'ERR_AUTH_SIGNATURE_INVALID');
    expect(h.decideCalls.filter((call) => call.policyFunction === 'evaluateLoanEligibility')).toHaveLength(0);
  });

  it('refuses a role raised after signing', async () => {
    const signed = signRequest({ method: 'POST', pathWithQuery: '/graphql', body: query, tenantId: 'acme', role: 'VIEWER', secret: TENANTS.acme });
    const response = await fetch(`${h.baseUrl}/graphql`, {
      method: 'POST',
      headers: { ...signed, 'X-User-Role': 'OWNER', 'content-type': 'application/json' },
      body: query,
    });
    expect(response.status).toBe(403);
    expectRefusal(await response.json(), 'ERR_AUTH_SIGNATURE_INVALID');
  });

  it('refuses a GET whose query string changed after signing', async () => {
    const signedPath = `/graphql?query=${encodeURIComponent('{ listPolicies { id } }')}`;
    const signed = signRequest({ method: 'GET', pathWithQuery: signedPath, body: '', tenantId: 'acme', role: 'MEMBER', secret: TENANTS.acme });
    const sentPath = `/graphql?query=${encodeURIComponent('{ listPolicies { id source } }')}`;
    const response = await fetch(`${h.baseUrl}${sentPath}`, { headers: signed });
    expect(response.status).toBe(403);
    expectRefusal(await response.json(), 'ERR_AUTH_SIGNATURE_INVALID');
  });

  it('refuses a request without the signing headers', async () => {
    const response = await fetch(`${h.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme', 'x-user-role': 'MEMBER' },
      body: query,
    });
    expect(response.status).toBe(403);
    expectRefusal(await response.json(), 'ERR_AUTH_SIGNATURE_MISSING');
  });

  it('refuses one tenant signing for another (cross-tenant)', async () => {
    const response = await h.signedFetch('/graphql', { body: query, tenant: 'globex', secret: TENANTS.acme });
    expect(response.status).toBe(403);
    expectRefusal(await response.json(), 'ERR_AUTH_SIGNATURE_INVALID');
  });

  it('answers an unknown tenant as a wrong signature', async () => {
    const response = await h.signedFetch('/graphql', { body: query, tenant: 'initech', secret: TENANTS.acme });
    expect(response.status).toBe(403);
    expectRefusal(await response.json(), 'ERR_AUTH_SIGNATURE_INVALID');
  });

  it('answers 400 for a missing tenant header', async () => {
    const signed: Record<string, string> = {
      ...signRequest({ method: 'POST', pathWithQuery: '/graphql', body: query, tenantId: 'acme', role: 'MEMBER', secret: TENANTS.acme }),
    };
    delete signed['X-Tenant-Id'];
    const response = await fetch(`${h.baseUrl}/graphql`, { method: 'POST', headers: { ...signed, 'content-type': 'application/json' }, body: query });
    expect(response.status).toBe(400);
    expectRefusal(await response.json(), 'ERR_TENANT_HEADER_MISSING');
  });

  it('answers 400 for an ill-formed tenant header', async () => {
    const signed = signRequest({ method: 'POST', pathWithQuery: '/graphql', body: query, tenantId: 'acme', role: 'MEMBER', secret: TENANTS.acme });
    const response = await fetch(`${h.baseUrl}/graphql`, {
      method: 'POST',
      headers: { ...signed, 'X-Tenant-Id': 'acme corp!', 'content-type': 'application/json' },
      body: query,
    });
    expect(response.status).toBe(400);
    expectRefusal(await response.json(), 'ERR_TENANT_HEADER_INVALID');
  });
});

describe('tenant scope', () => {
  it("returns null for another tenant's policy", async () => {
    const { status, body } = await h.graphql('{ getPolicy(id: "pol-globex-auto-1") { id policyModule } }', undefined, { role: 'VIEWER' });
    expect(status).toBe(200);
    expect(body).toEqual({ data: { getPolicy: null } });
  });

  it("returns the tenant's own policy with every field", async () => {
    const { body } = await h.graphql(
      'query ($id: ID!) { getPolicy(id: $id) { id policyModule policyFunction version status createdAt updatedAt source } }',
      { id: 'pol-acme-loan-1' },
      { role: 'VIEWER' },
    );
    const { tenantId: _, ...view } = POLICIES[1]!;
    expect(body).toEqual({ data: { getPolicy: view } });
  });

  it('lists only the caller tenant policies', async () => {
    const acme = await h.graphql('{ listPolicies { id } }', undefined, { tenant: 'acme', role: 'VIEWER' });
    const globex = await h.graphql('{ listPolicies { id status } }', undefined, { tenant: 'globex', role: 'VIEWER' });
    expect(acme.body.data).toEqual({ listPolicies: [{ id: 'pol-acme-loan-2' }, { id: 'pol-acme-loan-1' }] });
    expect(globex.body.data).toEqual({ listPolicies: [{ id: 'pol-globex-auto-1', status: 'ACTIVE' }] });
  });

  it('decides for the tenant that signed', async () => {
    const before = h.decideCalls.length;
    await h.graphql(`{ ${LOAN} }`, undefined, { tenant: 'globex' });
    expect(h.decideCalls.slice(before).map((call) => call.tenantId)).toEqual(['globex']);
  });
});

describe('roles', () => {
  it.each(['VIEWER', 'MEMBER', 'ADMIN', 'OWNER'])('%s reads policies and introspects', async (role) => {
    const { status, body } = await h.graphql('{ __typename listPolicies { id } getPolicy(id: "x") { id } __type(name: "Policy") { name } }', undefined, {
      role,
    });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
  });

  it.each(['MEMBER', 'ADMIN', 'OWNER'])('%s asks for domain decisions', async (role) => {
    const { status, body } = await h.graphql(`{ ${LOAN} }`, undefined, { role });
    expect(status).toBe(200);
    expect(body.data).toEqual({ evaluateLoanEligibility: { eligible: true, maxApprovedAmount: 10000 } });
  });

  it('refuses a domain decision to VIEWER after parsing, before anything runs', async () => {
    const before = h.decideCalls.length;
    const { status, body } = await h.graphql(`{ listPolicies { id } ${LOAN} }`, undefined, { role: 'VIEWER' });
    expect(status).toBe(403);
    expect(body.data).toBeUndefined();
    expect(body.errors).toEqual([
      {
        message: 'role VIEWER may read policies only: `evaluateLoanEligibility` needs MEMBER or higher',
        locations: [{ line: 1, column: 1 }],
        extensions: { code: 'ERR_AUTH_ROLE_INSUFFICIENT' },
      },
    ]);
    expect(h.decideCalls.length).toBe(before);
  });

  it('finds a domain decision hidden in a fragment, and one under @skip', async () => {
    const fragment = await h.graphql(`query { ...F } fragment F on Query { ... on Query { ${LOAN} } }`, undefined, { role: 'VIEWER' });
    expect(fragment.status).toBe(403);
    const skipped = await h.graphql(`query ($no: Boolean = true) { listPolicies { id } ${LOAN.replace(')', ') @skip(if: $no)')} }`, undefined, {
      role: 'VIEWER',
    });
    expect(skipped.status).toBe(403);
  });

  it.each([
    ['missing', undefined],
    ['unknown', 'SUPERUSER'],
  ])('refuses a %s role', async (_title, role) => {
    const body = JSON.stringify({ query: '{ listPolicies { id } }' });
    const signed: Record<string, string> = {
      ...signRequest({ method: 'POST', pathWithQuery: '/graphql', body, tenantId: 'acme', role: role ?? '', secret: TENANTS.acme }),
    };
    if (role === undefined) delete signed['X-User-Role'];
    const response = await fetch(`${h.baseUrl}/graphql`, { method: 'POST', headers: { ...signed, 'content-type': 'application/json' }, body });
    expect(response.status).toBe(403);
    expectRefusal(await response.json(), 'ERR_AUTH_ROLE_INSUFFICIENT');
  });
});

describe('read-only', () => {
  it('refuses a mutation sent with POST', async () => {
    const { status, body } = await h.graphql('mutation { deployPolicy }');
    expect(status).toBe(400);
    expect(body.errors).toEqual([
      {
        message: 'this endpoint is read-only: mutation operations are not supported, send a query',
        locations: [{ line: 1, column: 1 }],
        extensions: { code: 'ERR_GRAPHQL_OPERATION_NOT_SUPPORTED' },
      },
    ]);
  });

  it('answers 405 for a mutation sent with GET', async () => {
    const response = await h.signedFetch(`/graphql?query=${encodeURIComponent('mutation { __typename }')}`, { method: 'GET' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    const body = (await response.json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(body.errors[0]!.extensions.code).toBe('ERR_GRAPHQL_OPERATION_NOT_SUPPORTED');
  });

  it('refuses a subscription', async () => {
    const { status, body } = await h.graphql('subscription { policyDeployed }');
    expect(status).toBe(400);
    expect(body.errors![0]!.message).toContain('subscription operations are not supported');
  });

  it('serves a query sent with GET, variables in the URL, signed over the path with query and an empty body', async () => {
    const params = new URLSearchParams({
      query: 'query ($id: ID!) { getPolicy(id: $id) { id version } }',
      variables: JSON.stringify({ id: 'pol-acme-loan-2' }),
    });
    const response = await h.signedFetch(`/graphql?${params}`, { method: 'GET', role: 'VIEWER', headers: { accept: 'application/graphql-response+json' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(await response.json()).toEqual({ data: { getPolicy: { id: 'pol-acme-loan-2', version: 2 } } });
  });

  it('serves domain decisions with GET', async () => {
    const response = await h.signedFetch(`/graphql?query=${encodeURIComponent(`{ ${LOAN} }`)}`, { method: 'GET' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: { evaluateLoanEligibility: { eligible: true, maxApprovedAmount: 10000 } },
      extensions: { auditReceipts: { evaluateLoanEligibility: { auditRecordId: expect.any(String), auditContentHash: expect.stringMatching(/^[0-9a-f]{64}$/) } } },
    });
  });
});

describe('partial results', () => {
  it('a failed decision is an error at its field; the other root fields still resolve', async () => {
    const { status, body } = await h.graphql(`{ listPolicies { id } quote: ${BAD_AUTO} ${LOAN} }`);
    expect(status).toBe(200);
    expect(body.data).toEqual({
      listPolicies: [{ id: 'pol-acme-loan-2' }, { id: 'pol-acme-loan-1' }],
      quote: null,
      evaluateLoanEligibility: { eligible: true, maxApprovedAmount: 10000 },
    });
    expect(body.errors).toEqual([
      {
        message: '`coverageType` must be one of LIABILITY, STANDARD, COMPREHENSIVE',
        // `{ listPolicies { id } ` is 22 characters: the aliased field starts in column 23.
        locations: [{ line: 1, column: 23 }],
        path: ['quote'],
        extensions: {
          code: 'PL3004',
          policyModule: 'insurance.auto',
          policyFunction: 'generateAutoQuote',
          policyLocation: { line: expect.any(Number), column: expect.any(Number) },
        },
      },
    ]);
  });

  it('shows the nullability choice in the schema: decisions nullable at the root, their types as docs/domain.md', async () => {
    const { body } = await h.graphql(
      '{ __type(name: "Query") { fields { name type { kind name ofType { kind name } } } } loan: __type(name: "LoanEligibility") { fields { name type { kind ofType { name } } } } }',
      undefined,
      { role: 'VIEWER' },
    );
    const fields = (body.data!.__type as { fields: Array<{ name: string; type: { kind: string; name: string | null } }> }).fields;
    const kinds = Object.fromEntries(fields.map((field) => [field.name, field.type.kind]));
    expect(kinds).toEqual({
      getPolicy: 'OBJECT',
      listPolicies: 'NON_NULL',
      generateLifeQuote: 'OBJECT',
      calculateLifeRiskScore: 'OBJECT',
      generateAutoQuote: 'OBJECT',
      checkServiceEligibility: 'OBJECT',
      processClaim: 'OBJECT',
      evaluateLoanEligibility: 'OBJECT',
      evaluateCreditCardApplication: 'OBJECT',
      evaluateEnterpriseLoan: 'OBJECT',
      evaluatePersonalLoan: 'OBJECT',
    });
    const loan = (body.data!.loan as { fields: Array<{ type: { kind: string } }> }).fields;
    expect(loan.every((field) => field.type.kind === 'NON_NULL')).toBe(true);
  });
});

describe('failures of the evaluation path', () => {
  it('reports an unavailable engine at the field, with its code', async () => {
    const down = await startGraphqlHarness({
      decide: async () => {
        throw new EvaluationQueueError(new Error('connection refused'));
      },
    });
    try {
      const { status, body } = await down.graphql(`{ __typename ${LOAN} }`);
      expect(status).toBe(200);
      expect(body.data).toEqual({ __typename: 'Query', evaluateLoanEligibility: null });
      expect(body.errors![0]).toMatchObject({
        message: 'policy evaluation is unavailable: the evaluation queue is unavailable; retry later',
        path: ['evaluateLoanEligibility'],
        extensions: { code: 'ERR_EVALUATION_UNAVAILABLE' },
      });
    } finally {
      await down.close();
    }
  });

  it('reports a store that did not answer in time at the field, with its code and wait', async () => {
    const stalled = await startGraphqlHarness({
      decide: async () => {
        throw new DependencyUnavailableError('the store');
      },
    });
    try {
      const { status, body } = await stalled.graphql(`{ ${LOAN} }`);
      expect(status).toBe(200);
      expect(body.data).toEqual({ evaluateLoanEligibility: null });
      expect(body.errors![0]).toMatchObject({
        message: 'the store is not answering; retry in 2 s',
        path: ['evaluateLoanEligibility'],
        extensions: { code: 'ERR_SERVICE_UNAVAILABLE' },
      });
    } finally {
      await stalled.close();
    }
  });

  it('hides an unexpected fault behind a reference id', async () => {
    const broken = await startGraphqlHarness({
      decide: async () => {
        throw new Error('secret internal detail at /srv/app.js:12');
      },
    });
    try {
      const { status, body } = await broken.graphql(`{ ${LOAN} }`);
      expect(status).toBe(200);
      expect(body.data).toEqual({ evaluateLoanEligibility: null });
      const [error] = body.errors!;
      expect(error!.message).toMatch(/^internal error; reference [0-9a-f-]{36}$/);
      expect(error!.extensions).toEqual({ code: 'ERR_INTERNAL_UNEXPECTED' });
      expect(JSON.stringify(body)).not.toContain('secret internal detail');
    } finally {
      await broken.close();
    }
  });
});

describe('the answer bound', () => {
  it('answers an executed query whose answer would pass RESPONSE_MAX_BYTES with the 500 envelope, and a smaller one as usual', async () => {
    const small = await startGraphqlHarness({ policies: POLICIES, maxResponseBytes: 300 });
    try {
      expect((await small.graphql('{ listPolicies { id } }')).status).toBe(200);
      const { status, body } = await small.graphql('{ listPolicies { id policyModule policyFunction version status createdAt updatedAt source } }');
      const message = 'the answer is larger than 300 bytes (RESPONSE_MAX_BYTES); ask for less, such as a smaller page';
      expect(status).toBe(500);
      expect(body).toEqual({ errors: [{ message, extensions: { code: 'ERR_RESPONSE_TOO_LARGE' } }], result: null, error: message, executionTimeMs: 0, code: 'ERR_RESPONSE_TOO_LARGE' });
    } finally {
      await small.close();
    }
  });
});

describe('request limits and malformed requests', () => {
  let tight: GraphqlHarness;
  beforeAll(async () => {
    tight = await startGraphqlHarness({ limits: { maxDepth: 3, maxAliases: 2, maxCost: 40, maxTokens: 200, maxDocumentBytes: 2000 } });
  });
  afterAll(async () => {
    await tight.close();
  });

  async function refused(query: string, code: string, harness = tight, accept?: string) {
    const before = harness.decideCalls.length;
    const response = await harness.signedFetch('/graphql', {
      body: JSON.stringify({ query }),
      ...(accept ? { headers: { accept } } : {}),
    });
    const body = (await response.json()) as { data?: unknown; errors: Array<{ message: string; extensions: { code: string } }> };
    expect(response.status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors.map((error) => error.extensions.code)).toContain(code);
    expect(harness.decideCalls.length).toBe(before);
    return body.errors.find((error) => error.extensions.code === code)!.message;
  }

  it('depth', async () => {
    expect(await refused('{ __schema { types { fields { name } } } }', 'ERR_GRAPHQL_DEPTH_LIMIT')).toBe(
      'the operation is nested 4 levels deep; the limit is 3',
    );
  });

  it('depth through fragments', async () => {
    await refused('query Deep { ...A } fragment A on Query { __schema { ...B } } fragment B on __Schema { types { fields { name } } }', 'ERR_GRAPHQL_DEPTH_LIMIT');
  });

  it('aliases', async () => {
    expect(await refused('{ a: __typename b: __typename c: __typename }', 'ERR_GRAPHQL_ALIAS_LIMIT')).toBe(
      'the operation uses 3 aliases; the limit is 2',
    );
  });

  it('cost, with each decision weighing more than a field', async () => {
    // decisions 10 + 2, 10 + 1, 10 + 3; listPolicies of one 1 + 3; __typename 1: 41
    const query = `{ __typename listPolicies(size: 1) { id version status } ${LOAN} ${BAD_AUTO} calculateLifeRiskScore(applicant: {
      name: "A", age: 30, smoker: false, bmi: 22.0, healthScore: 80, occupationRisk: "LOW", familyHistory: false
    }) { score band factors } }`;
    expect(await refused(query, 'ERR_GRAPHQL_COST_LIMIT')).toBe(
      'the operation costs 41; the limit is 40 (each selected field costs 1, a policy\'s `source` 40, each domain decision 10; ' +
        '`listPolicies` counts its fields once per policy it may answer, `size` of them (100 when a variable); fragments counted where they are spread)',
    );
  });

  it('cost of a document that doubles itself through fragments', async () => {
    const fragments = Array.from({ length: 12 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ');
    const query = `{ ...F0 } ${fragments} fragment F12 on Query { __typename }`;
    const message = await refused(query, 'ERR_GRAPHQL_COST_LIMIT');
    expect(message).toContain(`costs ${2 ** 12}`);
  });

  it('tokens', async () => {
    const query = `{ ${Array.from({ length: 250 }, () => 'a').join(' ')} }`;
    expect(await refused(query, 'ERR_GRAPHQL_TOKEN_LIMIT')).toBe('the query document has more than 200 tokens; the limit is 200');
  });

  it('document size', async () => {
    const query = `{ __typename } # ${'x'.repeat(2000)}`;
    expect(await refused(query, 'ERR_GRAPHQL_DOCUMENT_TOO_LARGE')).toMatch(/^the query document is \d+ bytes; the limit is 2000$/);
  });

  it('syntax errors, with a 400 whatever the Accept header says', async () => {
    await refused('{ listPolicies { id }', 'ERR_GRAPHQL_PARSE_FAILED', h, 'application/json');
    await refused('{ listPolicies { id }', 'ERR_GRAPHQL_PARSE_FAILED', h, 'application/graphql-response+json');
  });

  it('validation errors', async () => {
    const message = await refused('{ listPolicies { id owner } }', 'ERR_GRAPHQL_VALIDATION_FAILED', h, 'application/json');
    expect(message).toBe('Cannot query field "owner" on type "Policy".');
  });

  it('a missing argument of a decision', async () => {
    await refused('{ evaluateLoanEligibility(application: { requestedAmount: 1, termMonths: 12, purpose: "CAR" }) { eligible } }', 'ERR_GRAPHQL_VALIDATION_FAILED', h);
  });

  it('variables that do not fit their types', async () => {
    const response = await h.signedFetch('/graphql', {
      body: JSON.stringify({
        query: 'query ($a: LoanApplication!, $b: LoanApplicant!) { evaluateLoanEligibility(application: $a, applicant: $b) { eligible } }',
        variables: { a: { requestedAmount: 'lots', termMonths: 12, purpose: 'CAR' }, b: null },
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(body.errors.length).toBe(2);
    expect(body.errors.every((error) => error.extensions.code === 'ERR_GRAPHQL_VARIABLES_INVALID')).toBe(true);
  });

  it('an operationName that names nothing, and several operations without one', async () => {
    const unnamed = await h.signedFetch('/graphql', { body: JSON.stringify({ query: 'query A { __typename } query B { __typename }' }) });
    expect(unnamed.status).toBe(400);
    const named = await h.signedFetch('/graphql', { body: JSON.stringify({ query: 'query A { __typename }', operationName: 'B' }) });
    expect(named.status).toBe(400);
    const chosen = await h.signedFetch('/graphql', { body: JSON.stringify({ query: 'query A { a: __typename } query B { b: __typename }', operationName: 'B' }) });
    expect(await chosen.json()).toEqual({ data: { b: 'Query' } });
  });

  it.each([
    ['no query', { variables: {} }, 'the request has no `query`: send the GraphQL document as the string `query`'],
    ['a query that is not a string', { query: 42 }, '`query` must be a string holding the GraphQL document'],
    ['variables that are not an object', { query: '{ __typename }', variables: [1] }, '`variables` must be an object mapping variable names to values'],
  ])('%s', async (_title, payload, message) => {
    const response = await h.signedFetch('/graphql', { body: JSON.stringify(payload) });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ errors: [{ message, extensions: { code: 'ERR_GRAPHQL_REQUEST_INVALID' } }] });
  });

  it('admits the standard introspection query with the default limits', async () => {
    const { status, body } = await h.graphql(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, inputValueDeprecation: true }), undefined, {
      role: 'VIEWER',
    });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect((body.data!.__schema as { queryType: { name: string } }).queryType.name).toBe('Query');
  });

  it('can be configured to refuse introspection', async () => {
    const closed = await startGraphqlHarness({ limits: { introspection: false } });
    try {
      await refused('{ __schema { queryType { name } } }', 'ERR_GRAPHQL_VALIDATION_FAILED', closed);
      expect((await closed.graphql('{ __typename }')).status).toBe(200);
    } finally {
      await closed.close();
    }
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After once the tenant quota is spent, in both error shapes', async () => {
    const limited = await startGraphqlHarness({ rateLimitPoints: 2 });
    try {
      expect((await limited.graphql('{ __typename }')).status).toBe(200);
      expect((await limited.graphql('{ __typename }')).status).toBe(200);
      const response = await limited.signedFetch('/graphql', { body: JSON.stringify({ query: '{ __typename }' }) });
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      expectRefusal(await response.json(), 'ERR_RATE_LIMIT_EXCEEDED');
    } finally {
      await limited.close();
    }
  });
});

describe('the signing client', () => {
  it('queries through PolicyClient.graphql and reports field errors as a failed outcome', async () => {
    const client = h.client('acme', 'MEMBER');
    const ok = await client.graphql<{ evaluateLoanEligibility: { eligible: boolean } }>(`{ ${LOAN} }`);
    expect(ok).toMatchObject({ ok: true, status: 200, data: { evaluateLoanEligibility: { eligible: true } } });
    const failed = await client.graphql(`{ ${BAD_AUTO} }`);
    expect(failed).toMatchObject({ ok: false, status: 200, data: { generateAutoQuote: null }, errors: [{ extensions: { code: 'PL3004' } }] });
  });
});
