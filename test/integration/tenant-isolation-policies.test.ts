// A tenant's policy listings cost only that tenant (the sibling of tenant-isolation.test.ts, over
// real HTTP, Redis, BullMQ, worker threads and SQLite). The attacker deploys the heaviest module the
// registry admits (256 rules in a source near the 64 KiB limit) in 40 versions, then lists it over
// REST and GraphQL (`listPolicies { source }` under aliases) from many concurrent requests. A
// listing used to repeat the module source on every rule: 80 MB REST answers, a process that ran
// out of heap. It also deploys 100 versions of a module of 20 rules × 120 parameters and lists
// them 25 times at once: a listed version used to carry its rules' signatures, some 7 MB a page
// built on the API's event loop. Here every answer is a page bounded in bytes, queries that could
// carry more sources than the cost limit allows are refused before anything runs, and the
// bystander tenant, sending one light evaluation every 0.2 s all along, gets every answer right and each within 10 s (about
// 20 ms on a quiet machine; the bound is generous for a loaded 2-core one). The process is alive at
// the end. Threads load dist/workers/evaluation-thread.js: `npx tsc -p tsconfig.json` first.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyClient, PolicyResponse } from '../../clients/typescript/src/index.js';
import { MAX_RULES_PER_MODULE, MAX_VERSIONS_PER_TENANT } from '../../src/policies/index.js';
import { failure, graphqlRoutes, startPoliciesHarness, type PoliciesHarness } from './policies-support/policies-harness.js';

const HUGE_MODULE = 'tenanta.huge';
const VERSIONS = 40;
/** The language's source limit (MAX_SOURCE_BYTES); the module stays just under it. */
const SOURCE_LIMIT = 64 * 1024;

/** `rules` rules padded with comments to just under the source limit; `variant` makes each version's source its own. */
function hugeSource(rules: number, variant: number): string {
  const rule = (i: number) => `Rule r${i} given x as Int, produce Int:\n  Return x plus ${variant}.\n`;
  const bare = `Module ${HUGE_MODULE}.\n\n${Array.from({ length: rules }, (_, i) => `#\n${rule(i)}\n`).join('')}`;
  const padding = Math.floor((SOURCE_LIMIT - 64 - bare.length) / rules);
  const source = `Module ${HUGE_MODULE}.\n\n${Array.from({ length: rules }, (_, i) => `#${'x'.repeat(padding)}\n${rule(i)}\n`).join('')}`;
  expect(Buffer.byteLength(source)).toBeLessThanOrEqual(SOURCE_LIMIT);
  expect(Buffer.byteLength(source)).toBeGreaterThan(SOURCE_LIMIT - 64 - rules);
  return source;
}

const SIGNATURE_MODULE = 'tenanta.sig';
const SIGNATURE_VERSIONS = 100;
const SIGNATURE_RULES = 20;
const SIGNATURE_PARAMS = 120;

/** 20 rules of 120 parameters each: a version whose rule signatures weigh some 150 KB as JSON. */
function signatureSource(variant: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const params = Array.from({ length: SIGNATURE_PARAMS }, (_, i) => `q${letters[Math.floor(i / 26)]}${letters[i % 26]} as Int`).join(', ');
  const rules = Array.from({ length: SIGNATURE_RULES }, (_, i) => `Rule r${i} given ${params}, produce Int:\n  Return ${variant}.\n`);
  return `Module ${SIGNATURE_MODULE}.\n\n${rules.join('\n')}`;
}

const PRICING = `Module tenantb.pricing.

Rule price given amount as Int, produce Int:
  Return amount times 2.
`;

/** Bytes of a 2xx answer as sent (Koa sets Content-Length on the serialised body). */
const bytesOf = (response: PolicyResponse<unknown>) => Number(response.headers.get('content-length'));

interface PolicyPage {
  content: Array<Record<string, unknown>>;
  totalElements: number;
  totalPages: number;
}

let h: PoliciesHarness;
let attacker: PolicyClient;
let attackerViewer: PolicyClient;
let bystander: PolicyClient;
let firstOwnPage: number;

beforeAll(async () => {
  h = await startPoliciesHarness({ extraRoutes: graphqlRoutes });
  attacker = h.signed(h.tenants.a, 'ADMIN');
  attackerViewer = h.signed(h.tenants.a, 'VIEWER');
  bystander = h.signed(h.tenants.b, 'ADMIN');
  // The heaviest module the registry admits, in 40 versions, four deploys at a time.
  for (let start = 1; start <= VERSIONS; start += 4) {
    const batch = Array.from({ length: Math.min(4, VERSIONS - start + 1) }, (_, i) => start + i);
    const deployed = await Promise.all(batch.map((v) => attacker.request('POST', '/api/v1/policies', { source: hugeSource(MAX_RULES_PER_MODULE, v) })));
    expect(deployed.map((answer) => answer.status)).toEqual(batch.map(() => 201));
  }
  const builtin = (await attackerViewer.request<PolicyPage>('GET', '/api/v1/policies?status=ACTIVE&size=1')).body.totalElements - MAX_RULES_PER_MODULE;
  firstOwnPage = Math.ceil(builtin / 12);
}, 240_000);

afterAll(async () => {
  await h?.close();
});

/**
 * Runs `attack` while the bystander sends one light evaluation every 0.2 s; every one must answer
 * 200 with its result, each within 10 s. Returns the attack's outcome.
 */
async function whileAttacked<T>(attack: () => Promise<T>): Promise<T> {
  const answers: Array<{ status: number; result: unknown; ms: number }> = [];
  let attacking = true;
  const bystanderRuns = (async () => {
    for (let i = 0; attacking || i < 3; i += 1) {
      const started = performance.now();
      const answer = await bystander.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: i }, locale: 'en-US' });
      answers.push({ status: answer.status, result: answer.ok ? answer.result : answer.error, ms: performance.now() - started });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  try {
    return await attack();
  } finally {
    attacking = false;
    await bystanderRuns;
    expect(answers.map((answer) => [answer.status, answer.result])).toEqual(answers.map((_, i) => [200, i * 2]));
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(10_000);
  }
}

describe('one tenant’s policy listings cost only that tenant', () => {
  it('refuses a module of more rules than the registry admits with 400 naming the bound', async () => {
    const refused = await whileAttacked(() => failure(attacker.request('POST', '/api/v1/policies', { source: hugeSource(MAX_RULES_PER_MODULE + 1, 0) })));
    expect([refused.status, refused.code]).toEqual([400, 'ERR_POLICY_TOO_MANY_RULES']);
    expect(refused.body.error).toContain(`at most ${MAX_RULES_PER_MODULE}`);
  });

  it('answers 40 concurrent REST listings, of any page and filter, with pages of at most 100 policies and no source', async () => {
    const queries = Array.from({ length: 40 }, (_, i) => {
      const filters = ['', '&status=ACTIVE', '&status=SUPERSEDED', `&policyModule=${HUGE_MODULE}`][i % 4];
      return `/api/v1/policies?size=100&page=${(i * 7) % 100}${filters}`;
    });
    const answers = await whileAttacked(() => Promise.all(queries.map((query) => attackerViewer.request<PolicyPage>('GET', query))));
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, queries[i]).toBe(200);
      expect(answer.body.content.length, queries[i]).toBeLessThanOrEqual(100);
      expect(answer.body.content.every((policy) => !('source' in policy)), queries[i]).toBe(true);
      // A page of 100 policies is some 30 KB of names and dates, whatever the module's source weighs.
      expect(bytesOf(answer), queries[i]).toBeLessThan(64 * 1024);
    }
    expect(answers[3]!.body.totalElements).toBe(VERSIONS * MAX_RULES_PER_MODULE);
    expect(answers[1]!.body.totalElements).toBe(answers[0]!.body.totalElements - (VERSIONS - 1) * MAX_RULES_PER_MODULE);
    // One policy read by its id carries its version's source, once. (Deploys raced for numbers, so
    // version 3 holds whichever source took it: the one its record's hash names.)
    const one = await attackerViewer.request<{ source: string }>('GET', `/api/v1/policies/${HUGE_MODULE}.r7@3`);
    const version = await attackerViewer.request<{ sourceHash: string }>('GET', `/api/v1/policies/${HUGE_MODULE}/versions/3`);
    expect(createHash('sha256').update(one.body.source, 'utf8').digest('hex')).toBe(version.body.sourceHash);
    expect(Array.from({ length: VERSIONS }, (_, i) => hugeSource(MAX_RULES_PER_MODULE, i + 1))).toContain(one.body.source);
  });

  it("answers 20 concurrent pages of the module's versions without their sources or signatures, each bounded", async () => {
    const queries = Array.from({ length: 20 }, (_, i) => `/api/v1/policies/${HUGE_MODULE}/versions?size=${[20, 100][i % 2]}&page=${i % 3}`);
    const answers = await whileAttacked(() => Promise.all(queries.map((query) => attackerViewer.request<PolicyPage>('GET', query))));
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, queries[i]).toBe(200);
      expect(answer.body.totalElements, queries[i]).toBe(VERSIONS);
      expect(answer.body.content.every((version) => !('source' in version) && !('functions' in version) && version.ruleCount === MAX_RULES_PER_MODULE), queries[i]).toBe(true);
      // A few hundred bytes per version, never its 64 KiB source or its 256 rule signatures.
      expect(bytesOf(answer), queries[i]).toBeLessThan(answer.body.content.length * 512 + 1024);
    }
  });

  it('answers 25 concurrent pages of 100 versions with 2,400 parameters each in a few kilobytes; one version read alone carries its signatures', async () => {
    for (let start = 1; start <= SIGNATURE_VERSIONS; start += 4) {
      const batch = Array.from({ length: 4 }, (_, i) => start + i);
      const deployed = await Promise.all(batch.map((v) => attacker.request('POST', '/api/v1/policies', { source: signatureSource(v) })));
      expect(deployed.map((answer) => answer.status)).toEqual(batch.map(() => 201));
    }
    const query = `/api/v1/policies/${SIGNATURE_MODULE}/versions?size=100`;
    const answers = await whileAttacked(() => Promise.all(Array.from({ length: 25 }, () => attackerViewer.request<PolicyPage>('GET', query))));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.content).toHaveLength(SIGNATURE_VERSIONS);
      expect(answer.body.content.every((version) => !('functions' in version) && version.ruleCount === SIGNATURE_RULES)).toBe(true);
      // Each version's signatures would make the page some 15 MB; without them it is a few hundred bytes per version.
      expect(bytesOf(answer)).toBeLessThan(100 * 1024);
    }
    type Version = { functions: Array<{ name: string; params: unknown[] }>; ruleCount: number };
    const one = await attackerViewer.request<Version>('GET', `/api/v1/policies/${SIGNATURE_MODULE}/versions/7`);
    expect(one.status).toBe(200);
    expect(one.body.ruleCount).toBe(SIGNATURE_RULES);
    expect(one.body.functions.map((f) => f.params.length)).toEqual(Array.from({ length: SIGNATURE_RULES }, () => SIGNATURE_PARAMS));
  });

  it('refuses GraphQL listings whose answer could carry more sources than the cost limit allows, before anything runs', async () => {
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: listPolicies { source }`).join(' ')} }`;
    const queries = [aliased(6), aliased(8), aliased(30), 'query ($n: Int) { listPolicies(size: $n) { source } }', '{ listPolicies(size: 100) { id source } }'];
    const refusals = await whileAttacked(() => Promise.all(queries.map((query) => failure(attackerViewer.graphql(query, { n: 100 })))));
    for (const [i, refused] of refusals.entries()) {
      expect(refused.status, queries[i]).toBe(400);
      expect((refused.body.errors as Array<{ extensions: { code: string } }>)[0]!.extensions.code, queries[i]).toBe('ERR_GRAPHQL_COST_LIMIT');
    }
  });

  it('answers 8 concurrent GraphQL queries with the most sources the cost limit admits, each answer bounded', async () => {
    // 2 × (1 + 12 × (1 + 40)) = 986 of 1000: 24 sources, the most one query may carry.
    const query = 'query ($p: Int) { a: listPolicies(page: $p, size: 12) { id source } b: listPolicies(page: $p, size: 12) { id source } }';
    type Listed = { a: Array<{ id: string; source: string }>; b: Array<{ id: string; source: string }> };
    const answers = await whileAttacked(() =>
      Promise.all(Array.from({ length: 8 }, (_, i) => attackerViewer.request<{ data: Listed }>('POST', '/graphql', { query, variables: { p: firstOwnPage + i * 3 } }))),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.data.a).toHaveLength(12);
      expect(answer.body.data.a.every((policy) => policy.id.startsWith(`${HUGE_MODULE}.`) && policy.source.startsWith(`Module ${HUGE_MODULE}.`))).toBe(true);
      // 24 sources near 64 KiB each, and little else.
      expect(bytesOf(answer)).toBeGreaterThan(24 * (SOURCE_LIMIT - 1024));
      expect(bytesOf(answer)).toBeLessThan(24 * SOURCE_LIMIT * 1.1);
    }
    // The argument-free call of the interface still answers: the first page.
    const first = await attackerViewer.graphql<{ listPolicies: Array<{ id: string; source: string }> }>('{ listPolicies { id source } }');
    expect(first.ok && first.data.listPolicies.length).toBe(20);
  });

  it(`refuses a tenant's deploy past ${MAX_VERSIONS_PER_TENANT} stored versions with 409, and still lists them in bounded pages`, async () => {
    const { tenantId } = h.tenants.a;
    // Up to one below the quota, stored directly: compiling hundreds of 64 KiB sources would only slow the test.
    const stored = await h.store.policies.countVersions(tenantId);
    for (let v = 1; v < MAX_VERSIONS_PER_TENANT - stored; v += 1) {
      const filler = { policyModule: 'tenanta.filler', version: v, source: 'Module tenanta.filler.', locale: 'en-US', sourceHash: 'h', functions: [{ name: 'f', params: [], returnType: 'Int' }], actorId: 'a', createdAt: new Date().toISOString() };
      expect(await h.store.policies.insertVersion(tenantId, filler)).toBe(true);
    }
    const last = await attacker.request('POST', '/api/v1/policies', { source: hugeSource(MAX_RULES_PER_MODULE, 99) });
    expect(last.status).toBe(201);
    const refused = await whileAttacked(() => failure(attacker.request('POST', '/api/v1/policies', { source: hugeSource(MAX_RULES_PER_MODULE, 100) })));
    expect([refused.status, refused.code]).toEqual([409, 'ERR_POLICY_VERSION_QUOTA_EXCEEDED']);
    expect(await h.store.policies.countVersions(tenantId)).toBe(MAX_VERSIONS_PER_TENANT);
    // The bystander deploys as usual.
    expect((await bystander.request('POST', '/api/v1/policies', { source: PRICING })).status).toBe(201);
    // The last page of the attacker's list, past 1,000 versions, answers like the first.
    const head = (await attackerViewer.request<PolicyPage>('GET', '/api/v1/policies?size=100')).body;
    const tail = await whileAttacked(() => attackerViewer.request<PolicyPage>('GET', `/api/v1/policies?size=100&page=${head.totalPages - 1}`));
    expect(tail.body.content.length).toBe(head.totalElements - 100 * (head.totalPages - 1));
    expect(bytesOf(tail)).toBeLessThan(64 * 1024);
  });

  it('is alive at the end: health and the bystander answer', async () => {
    expect((await fetch(`${h.baseUrl}/healthz`)).status).toBe(200);
    const answer = await bystander.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: 21 }, locale: 'en-US' });
    expect(answer.ok && answer.result).toBe(42);
  });
});
