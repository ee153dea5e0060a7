// The registry on the MongoDB adapter (FerretDB in CI): versions, activations and rollups as the
// service uses them, with concurrent evaluations counted exactly. Real HTTP, Redis, worker
// threads; needs `npx tsc -p tsconfig.json` first (threads) and MONGODB_URL.
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { minuteOf } from '../../src/evaluation/index.js';
import { openMongoStore, type MongoStore } from '../../src/store/index.js';
import { describeWithMongo, uniqueDatabaseName } from '../support/index.js';
import { failure, startPoliciesHarness, type PoliciesHarness } from './policies-support/policies-harness.js';

const SOURCE = (factor: number) => `Module acme.mongo.

Rule price given amount as Int, produce Int:
  If amount is less than 0:
    Fail with "negative amount".
  Return amount times ${factor}.
`;

describeWithMongo('policy registry on MongoDB', (url) => {
  const database = uniqueDatabaseName('pe_test_policies');
  let h: PoliciesHarness;

  beforeAll(async () => {
    h = await startPoliciesHarness({ openStore: () => openMongoStore({ url, database }) });
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    const client = new MongoClient(url);
    try {
      await client.db(database).dropDatabase();
    } finally {
      await client.close();
    }
  });

  it('deploys, supersedes, pins, rolls back and counts concurrent evaluations exactly', async () => {
    const { a, b } = h.tenants;
    const admin = h.signed(a, 'ADMIN');
    const member = h.signed(a, 'MEMBER');
    expect((await admin.request<{ version: number }>('POST', '/api/v1/policies', { source: SOURCE(2) })).body.version).toBe(1);
    expect((await admin.request<{ version: number }>('POST', '/api/v1/policies', { source: SOURCE(3) })).body.version).toBe(2);
    const versions = await member.request<{ content: Array<{ version: number; status: string }> }>('GET', '/api/v1/policies/acme.mongo/versions');
    expect(versions.body.content.map((v) => [v.version, v.status])).toEqual([[1, 'SUPERSEDED'], [2, 'ACTIVE']]);

    const evaluate = (amount: number, version?: number) =>
      member.request<{ result: unknown; version: number }>('POST', '/api/v1/policies/evaluate', {
        policyModule: 'acme.mongo',
        policyFunction: 'price',
        context: { amount },
        ...(version !== undefined ? { version } : {}),
      });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => evaluate(i % 4 === 0 ? -1 : i, i % 2 === 0 ? 1 : undefined)));
    answers.forEach(({ body }, i) => {
      if (i % 4 === 0) expect(body.result).toBeNull();
      else expect(body).toMatchObject({ result: i * (i % 2 === 0 ? 2 : 3), version: i % 2 === 0 ? 1 : 2 });
    });

    await h.signed(a, 'ADMIN').request('POST', '/api/v1/policies/acme.mongo/rollback', { version: 1 });
    expect((await evaluate(5)).body).toMatchObject({ result: 10, version: 1 });
    expect((await failure(h.signed(b, 'MEMBER').request('POST', '/api/v1/policies/evaluate', { policyModule: 'acme.mongo', policyFunction: 'price', context: [1] }))).status).toBe(404);

    const buckets = await h.store.rollups.range(a.tenantId, {
      from: minuteOf(new Date(Date.now() - 10 * 60_000)),
      to: minuteOf(new Date()),
      policyModule: 'acme.mongo',
    });
    const totals = { 1: { count: 0, failures: 0 }, 2: { count: 0, failures: 0 } } as Record<number, { count: number; failures: number }>;
    for (const bucket of buckets) {
      totals[bucket.version]!.count += bucket.count;
      totals[bucket.version]!.failures += bucket.failures;
    }
    expect(totals).toEqual({ 1: { count: 21, failures: 10 }, 2: { count: 20, failures: 0 } });
    const evaluated = await h.auditOfType(a, 'POLICY_EVALUATED');
    expect(evaluated).toHaveLength(41);
    expect((await h.auditOfType(a, 'POLICY_ROLLED_BACK')).map((r) => r.payload.previousVersion)).toEqual([2]);
  }, 60_000);

  it('lists the policies in pages by status, versions stored before rule counts were kept included', async () => {
    const { a } = h.tenants;
    // A version as stored before: no ruleCount, no owed record.
    const functions = ['second', 'first'].map((name) => ({ name, params: [], returnType: 'Int' }));
    await (h.store as MongoStore).raw.db.collection('policy_versions').insertOne({
      _id: `${a.tenantId}:acme.legacy:1` as never,
      tenantId: a.tenantId,
      policyModule: 'acme.legacy',
      version: 1,
      source: 'Module acme.legacy.',
      locale: 'en-US',
      sourceHash: 'h',
      functions,
      actorId: 'old',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    const viewer = h.signed(a, 'VIEWER');
    type Page = { content: Array<{ id: string; status: string }>; totalElements: number };
    const legacy = (await viewer.request<Page>('GET', '/api/v1/policies?policyModule=acme.legacy')).body;
    expect(legacy).toMatchObject({ totalElements: 2, content: [{ id: 'acme.legacy.second@1', status: 'SUPERSEDED' }, { id: 'acme.legacy.first@1', status: 'SUPERSEDED' }] });
    const active = (await viewer.request<Page>('GET', '/api/v1/policies?policyModule=acme.mongo&status=ACTIVE')).body;
    expect(active.content.map((p) => p.id)).toEqual(['acme.mongo.price@1']);
    const pages = await Promise.all([0, 1, 2].map(async (page) => (await viewer.request<Page>('GET', `/api/v1/policies?size=1&page=${page}&policyModule=acme.mongo`)).body));
    expect(pages.map((p) => [p.totalElements, p.content.map((c) => `${c.id} ${c.status}`)])).toEqual([
      [2, ['acme.mongo.price@1 ACTIVE']],
      [2, ['acme.mongo.price@2 SUPERSEDED']],
      [2, []],
    ]);
  });
});
