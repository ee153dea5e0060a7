import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  computeAuditContentHash,
  GENESIS_PREVIOUS_HASH,
  verifyChain,
  type AuditReceipt,
  type AuditRecord,
  type ChainHead,
} from '../../src/audit/index.js';
import type { IdempotencyRecord } from '../../src/idempotency/index.js';
import { StoreArgumentError, type Store } from '../../src/store/index.js';
import { buildChain, buildRecords, headOf } from '../support/audit-records.js';
import { linkChain } from '../support/link-chain.js';
import { createProcessTrails } from '../support/process-trails.js';
import type { StoreTarget } from '../support/store-targets.js';
import { runAnomalyStoreContract } from './anomaly-store-contract.js';
import { runAuditLinkStoreContract } from './audit-link-store-contract.js';
import { runPolicyStoreContract } from './policy-store-contract.js';
import { runWebhookStoreContract } from './webhook-store-contract.js';
import { runWorkflowStoreContract } from './workflow-store-contract.js';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

let tenantCounter = 0;
/** Every case uses its own tenants, so cases share one backend without seeing each other. */
function newTenant(label: string): string {
  tenantCounter += 1;
  return `${label}-${tenantCounter}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The behaviour every Store adapter must have. `makeTarget` gives a fresh isolated backend; the
 * suite opens connections to it, and uses its raw access only to stage races and damage.
 */
export function runStoreContract(makeTarget: () => StoreTarget): void {
  let target: StoreTarget;
  let store: Store;

  beforeAll(async () => {
    target = makeTarget();
    store = await target.connect();
  });

  afterAll(async () => {
    await target?.dispose();
  });

  describe('store', () => {
    it('answers ping and names its kind', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
      expect(store.kind).toBe(target.kind);
    });
  });

  describe('audit chain: head', () => {
    it('has no head before the first link', async () => {
      const tenant = newTenant('empty');
      expect(await store.audit.head(tenant)).toBeNull();
      // A lease taken and given back links nothing.
      await linkChain(store, tenant, []);
      expect(await store.audit.head(tenant)).toBeNull();
      expect(await collect(store.audit.scan(tenant, 1, 10))).toEqual([]);
    });

    it('stores linked records and returns every field exactly as given', async () => {
      const tenant = newTenant('roundtrip');
      const records = buildRecords(null, [
        {},
        { policyModule: null, policyFunction: null, eventType: 'POLICY_DEPLOYED' },
        {
          payload: {
            nested: { list: [1, 2.5, -0.125, 1e21, null, true, 'x'], empty: {} },
            unicode: 'Zürich – 東京 – 😀',
            'dotted.key': 1,
            $dollar: 'kept',
            big: 9007199254740991,
          },
        },
      ]);
      expect(records[0]!.previousHash).toBe(GENESIS_PREVIOUS_HASH);
      await linkChain(store, tenant, records);
      expect(await store.audit.head(tenant)).toEqual(headOf(records));
      expect(await collect(store.audit.scan(tenant, 1, 10))).toEqual(records);
    });

    it('links records on top of the stored head', async () => {
      const tenant = newTenant('extend');
      const first = buildChain(null, 2);
      const second = buildChain(headOf(first), 3);
      await linkChain(store, tenant, first);
      await linkChain(store, tenant, second);
      expect(await store.audit.head(tenant)).toEqual({ seq: 5, hash: second[2]!.hash });
      expect(await collect(store.audit.scan(tenant, 1, 10))).toEqual([...first, ...second]);
    });

    it('finds the head from a connection that linked nothing, for chains of any length', async () => {
      const tenant = newTenant('reader');
      const reader = await target.connect();
      let head: ChainHead | null = null;
      for (const count of [1, 1, 1, 4, 30, 3]) {
        const batch = buildChain(head, count);
        await linkChain(store, tenant, batch);
        head = headOf(batch);
        expect(await reader.audit.head(tenant)).toEqual(head);
      }
      await expect((await target.connect()).audit.head(tenant)).resolves.toEqual({ seq: 40, hash: head!.hash });
    });
  });

  describe('audit chain: list', () => {
    const tenant = newTenant('list');
    let records: AuditRecord[];

    beforeAll(async () => {
      records = buildRecords(null, [
        { eventType: 'POLICY_DEPLOYED', policyModule: 'com.acme.loans', policyFunction: 'eligible' }, // 1 @ +1s
        { eventType: 'POLICY_EVALUATED', policyModule: 'com.acme.loans', policyFunction: 'eligible' }, // 2
        { eventType: 'POLICY_EVALUATED', policyModule: 'com.acme.loans', policyFunction: 'rate' }, // 3
        { eventType: 'POLICY_EVALUATED', policyModule: 'com.acme.cards', policyFunction: 'eligible' }, // 4
        { eventType: 'POLICY_ROLLED_BACK', policyModule: 'com.acme.loans', policyFunction: null }, // 5
        { eventType: 'POLICY_EVALUATED', policyModule: 'com.acme.loans', policyFunction: 'eligible' }, // 6
      ]);
      await linkChain(store, tenant, records);
    });

    const seqs = (list: AuditRecord[]) => list.map((r) => r.seq);

    it('returns records newest first up to the limit', async () => {
      expect(seqs(await store.audit.list(tenant, { limit: 100 }))).toEqual([6, 5, 4, 3, 2, 1]);
      expect(seqs(await store.audit.list(tenant, { limit: 2 }))).toEqual([6, 5]);
      expect((await store.audit.list(tenant, { limit: 1 }))[0]).toEqual(records[5]);
    });

    it('pages with before', async () => {
      expect(seqs(await store.audit.list(tenant, { limit: 2, before: 5 }))).toEqual([4, 3]);
      expect(seqs(await store.audit.list(tenant, { limit: 2, before: 1 }))).toEqual([]);
    });

    it('filters by event type', async () => {
      expect(seqs(await store.audit.list(tenant, { limit: 100, eventType: 'POLICY_EVALUATED' }))).toEqual([6, 4, 3, 2]);
      expect(seqs(await store.audit.list(tenant, { limit: 100, eventType: 'NOPE' }))).toEqual([]);
    });

    it('filters by policy module and function', async () => {
      const byPolicy = await store.audit.list(tenant, {
        limit: 100,
        policyModule: 'com.acme.loans',
        policyFunction: 'eligible',
      });
      expect(seqs(byPolicy)).toEqual([6, 2, 1]);
      expect(seqs(await store.audit.list(tenant, { limit: 100, policyModule: 'com.acme.loans' }))).toEqual([6, 5, 3, 2, 1]);
    });

    it('filters by an inclusive time window, whatever the ISO 8601 spelling of its bounds', async () => {
      // Record n occurred at 2026-01-01T00:00:0n.000Z.
      const window = { from: '2026-01-01T00:00:02Z', to: '2026-01-01T01:00:04+01:00' };
      expect(seqs(await store.audit.list(tenant, { limit: 100, ...window }))).toEqual([4, 3, 2]);
      expect(seqs(await store.audit.list(tenant, { limit: 100, from: '2026-01-01T00:00:05.000Z' }))).toEqual([6, 5]);
      expect(seqs(await store.audit.list(tenant, { limit: 100, to: '2026-01-01T00:00:01.000Z' }))).toEqual([1]);
      expect(seqs(await store.audit.list(tenant, { limit: 100, from: '2026-01-01T00:00:01.001Z', to: '2026-01-01T00:00:01.999Z' }))).toEqual([]);
    });

    it('lists the newest records of a time window however full the window is, and pages in it', async () => {
      // Windows holding more records than twice the limit, and fewer (SQLite reads the two differently).
      const window = { from: '2026-01-01T00:00:02.000Z', to: '2026-01-01T00:00:06.000Z' };
      expect(seqs(await store.audit.list(tenant, { limit: 1, ...window }))).toEqual([6]);
      expect(seqs(await store.audit.list(tenant, { limit: 2, ...window }))).toEqual([6, 5]);
      expect(seqs(await store.audit.list(tenant, { limit: 2, before: 6, ...window }))).toEqual([5, 4]);
      expect(seqs(await store.audit.list(tenant, { limit: 2, before: 4, ...window }))).toEqual([3, 2]);
      expect(seqs(await store.audit.list(tenant, { limit: 3, ...window }))).toEqual([6, 5, 4]);
      expect(seqs(await store.audit.list(tenant, { limit: 1, from: '2026-01-01T00:00:05.000Z' }))).toEqual([6]);
      expect(seqs(await store.audit.list(tenant, { limit: 1, to: '2026-01-01T00:00:03.000Z' }))).toEqual([3]);
    });

    it('combines filters with paging', async () => {
      const list = await store.audit.list(tenant, {
        limit: 1,
        eventType: 'POLICY_EVALUATED',
        policyModule: 'com.acme.loans',
        before: 6,
        from: '2026-01-01T00:00:02.000Z',
      });
      expect(seqs(list)).toEqual([3]);
    });

    it('refuses a bad limit, before or time bound', async () => {
      await expect(store.audit.list(tenant, { limit: 0 })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store.audit.list(tenant, { limit: 1.5 })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store.audit.list(tenant, { limit: 5, before: -1 })).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store.audit.list(tenant, { limit: 5, from: 'yesterday' })).rejects.toThrow(/from must be an ISO 8601/);
    });
  });

  describe('audit chain: findById', () => {
    it('finds a record of the tenant by its id, and nothing for another id or tenant', async () => {
      const tenant = newTenant('by-id');
      const records = buildRecords(null, [{}, { eventType: 'POLICY_DEPLOYED' }, {}]);
      await linkChain(store, tenant, records);
      expect(await store.audit.findById(tenant, records[1]!.id)).toEqual(records[1]);
      expect(await (await target.connect()).audit.findById(tenant, records[2]!.id)).toEqual(records[2]);
      expect(await store.audit.findById(tenant, 'no-such-id')).toBeNull();
      expect(await store.audit.findById(newTenant('by-id-other'), records[1]!.id)).toBeNull();
      await expect(store.audit.findById(tenant, '')).rejects.toBeInstanceOf(StoreArgumentError);
    });
  });

  describe('audit chain: scan', () => {
    it('streams from any seq in ascending order across pages', async () => {
      const tenant = newTenant('scan');
      const records = buildChain(null, 23);
      await linkChain(store, tenant, records);
      expect(await collect(store.audit.scan(tenant, 1, 5))).toEqual(records);
      expect((await collect(store.audit.scan(tenant, 11, 4))).map((r) => r.seq)).toEqual(records.slice(10).map((r) => r.seq));
      expect(await collect(store.audit.scan(tenant, 23, 23))).toEqual([records[22]]);
      expect(await collect(store.audit.scan(tenant, 24, 5))).toEqual([]);
      await expect(collect(store.audit.scan(tenant, 1, 0))).rejects.toBeInstanceOf(StoreArgumentError);
    });
  });

  describe('tenant isolation', () => {
    it('keeps each tenant in its own chain, with the same seqs in both', async () => {
      const a = newTenant('iso-a');
      const b = newTenant('iso-b');
      const chainA = buildChain(null, 3);
      const chainB = buildRecords(null, [{ eventType: 'POLICY_DEPLOYED' }, { eventType: 'POLICY_DEPLOYED' }]);
      await linkChain(store, a, chainA);
      await linkChain(store, b, chainB);
      expect(await store.audit.head(a)).toEqual(headOf(chainA));
      expect(await store.audit.head(b)).toEqual(headOf(chainB));
      expect(await store.audit.list(a, { limit: 10 })).toEqual([...chainA].reverse());
      expect(await store.audit.list(b, { limit: 10, eventType: 'POLICY_EVALUATED' })).toEqual([]);
      expect(await collect(store.audit.scan(b, 1, 10))).toEqual(chainB);
      // A's head does not extend B's chain: a link built on it is refused, and B keeps its own head.
      await expect(linkChain(store, b, buildChain(headOf(chainA), 1))).rejects.toThrow(/do not extend the chain/);
      expect(await store.audit.head(b)).toEqual(headOf(chainB));
      expect(await collect(store.audit.scan(b, 1, 10))).toEqual(chainB);
    });

    it('keeps tenants and idempotency keys apart', async () => {
      const a = newTenant('iso-ta');
      const b = newTenant('iso-tb');
      const now = new Date('2026-03-01T00:00:00.000Z');
      await store.tenants.create({ tenantId: a, createdAt: now.toISOString() }, { version: 1, secret: 'sa', createdAt: now.toISOString() });
      expect(await store.tenants.get(b)).toBeNull();
      expect(await store.tenants.activeSecrets(b)).toEqual([]);
      expect(await store.tenants.addSecret(b, { version: 2, secret: 'x', createdAt: now.toISOString() })).toBe(false);
      const record = idempotencyRecord('k-1', now, 60_000);
      expect(await store.idempotency.putIfAbsent(a, record, now)).toBe(true);
      expect(await store.idempotency.get(b, 'k-1', now)).toBeNull();
      expect(await store.idempotency.putIfAbsent(b, { ...record, requestHash: 'other' }, now)).toBe(true);
      expect((await store.idempotency.get(a, 'k-1', now))?.requestHash).toBe(record.requestHash);
    });
  });

  describe('tenants', () => {
    const t0 = '2026-02-01T00:00:00.000Z';

    it('creates a tenant once with its first secret', async () => {
      const tenant = newTenant('tenant');
      expect(await store.tenants.get(tenant)).toBeNull();
      expect(await store.tenants.create({ tenantId: tenant, createdAt: t0 }, { version: 1, secret: 's1', createdAt: t0 })).toBe(true);
      expect(await store.tenants.create({ tenantId: tenant, createdAt: t0 }, { version: 1, secret: 'other', createdAt: t0 })).toBe(false);
      expect(await store.tenants.get(tenant)).toEqual({ tenantId: tenant, createdAt: t0 });
      expect(await store.tenants.activeSecrets(tenant)).toEqual([{ version: 1, secret: 's1', createdAt: t0 }]);
    });

    it('keeps the two newest secrets valid, newest first', async () => {
      const tenant = newTenant('rotate');
      await store.tenants.create({ tenantId: tenant, createdAt: t0 }, { version: 1, secret: 's1', createdAt: t0 });
      expect(await store.tenants.addSecret(tenant, { version: 2, secret: 's2', createdAt: t0 })).toBe(true);
      expect((await store.tenants.activeSecrets(tenant)).map((s) => s.secret)).toEqual(['s2', 's1']);
      expect(await store.tenants.addSecret(tenant, { version: 3, secret: 's3', createdAt: t0 })).toBe(true);
      expect(await store.tenants.activeSecrets(tenant)).toEqual([
        { version: 3, secret: 's3', createdAt: t0 },
        { version: 2, secret: 's2', createdAt: t0 },
      ]);
    });

    it('refuses a secret version that exists, changing nothing', async () => {
      const tenant = newTenant('dupsecret');
      await store.tenants.create({ tenantId: tenant, createdAt: t0 }, { version: 1, secret: 's1', createdAt: t0 });
      await store.tenants.addSecret(tenant, { version: 2, secret: 's2', createdAt: t0 });
      expect(await store.tenants.addSecret(tenant, { version: 1, secret: 'evil', createdAt: t0 })).toBe(false);
      expect(await store.tenants.addSecret(tenant, { version: 2, secret: 'evil', createdAt: t0 })).toBe(false);
      expect((await store.tenants.activeSecrets(tenant)).map((s) => s.secret)).toEqual(['s2', 's1']);
    });

    it('lets exactly one of many concurrent creates of a tenant win', async () => {
      const tenant = newTenant('race');
      const others = await Promise.all(Array.from({ length: 3 }, () => target.connect()));
      const results = await Promise.all(
        [store, ...others].flatMap((s, i) => [0, 1].map((j) =>
          s.tenants.create({ tenantId: tenant, createdAt: t0 }, { version: 1, secret: `s-${i}-${j}`, createdAt: t0 }))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const [secret] = await store.tenants.activeSecrets(tenant);
      expect(results.indexOf(true)).toBe(
        [0, 1, 2, 3].flatMap((i) => [0, 1].map((j) => `s-${i}-${j}`)).indexOf(secret!.secret),
      );
    });
  });

  describe('idempotency', () => {
    const now = new Date('2026-04-01T12:00:00.000Z');

    it('stores a response once and returns it while unexpired', async () => {
      const tenant = newTenant('idem');
      const record = idempotencyRecord('key-1', now, 24 * 3600_000);
      expect(await store.idempotency.get(tenant, 'key-1', now)).toBeNull();
      expect(await store.idempotency.putIfAbsent(tenant, record, now)).toBe(true);
      expect(await store.idempotency.get(tenant, 'key-1', now)).toEqual(record);
      const retry = { ...record, requestHash: 'second', response: { status: 201, body: { other: true } } };
      expect(await store.idempotency.putIfAbsent(tenant, retry, now)).toBe(false);
      expect(await store.idempotency.get(tenant, 'key-1', new Date(now.getTime() + 1000))).toEqual(record);
    });

    it('treats an expired record as absent and lets the next writer replace it', async () => {
      const tenant = newTenant('expiry');
      const record = idempotencyRecord('key-2', now, 60_000);
      await store.idempotency.putIfAbsent(tenant, record, now);
      const justBefore = new Date(now.getTime() + 59_999);
      const atExpiry = new Date(now.getTime() + 60_000);
      expect(await store.idempotency.get(tenant, 'key-2', justBefore)).toEqual(record);
      expect(await store.idempotency.get(tenant, 'key-2', atExpiry)).toBeNull();
      const next = { ...idempotencyRecord('key-2', atExpiry, 60_000), requestHash: 'next' };
      expect(await store.idempotency.putIfAbsent(tenant, { ...record, requestHash: 'early' }, justBefore)).toBe(false);
      expect(await store.idempotency.putIfAbsent(tenant, next, atExpiry)).toBe(true);
      expect(await store.idempotency.get(tenant, 'key-2', atExpiry)).toEqual(next);
    });

    it('lets exactly one of many concurrent writers of a key win, also over an expired record', async () => {
      const tenant = newTenant('idem-race');
      const others = await Promise.all(Array.from({ length: 3 }, () => target.connect()));
      const all = [store, ...others];
      for (const [round, at] of [[0, now], [1, new Date(now.getTime() + 120_000)]] as const) {
        const results = await Promise.all(
          all.flatMap((s, i) => [0, 1, 2].map((j) =>
            s.idempotency.putIfAbsent(tenant, { ...idempotencyRecord('key-3', at, 60_000), requestHash: `r${round}-${i}-${j}` }, at))),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const stored = await store.idempotency.get(tenant, 'key-3', at);
        expect(stored?.requestHash.startsWith(`r${round}-`)).toBe(true);
      }
    });

    it('holds a running key for its owner, who completes it with the response or releases it', async () => {
      const tenant = newTenant('idem-run');
      const running: IdempotencyRecord = { ...idempotencyRecord('key-4', now, 60_000), owner: 'first', response: null };
      expect(await store.idempotency.putIfAbsent(tenant, running, now)).toBe(true);
      expect(await store.idempotency.get(tenant, 'key-4', now)).toEqual(running);
      const response = { status: 409, body: { error: 'the anomaly is RESOLVED', list: [1, null] } };
      const replayUntil = new Date(now.getTime() + 24 * 3600_000).toISOString();
      expect(await store.idempotency.complete(tenant, 'key-4', 'someone-else', response, replayUntil)).toBe(false);
      expect(await store.idempotency.complete(tenant, 'key-4', 'first', response, replayUntil)).toBe(true);
      const completed = await store.idempotency.get(tenant, 'key-4', new Date(now.getTime() + 23 * 3600_000));
      expect(completed).toEqual({ ...running, response, expiresAt: replayUntil });
      // A completed record is not completed again nor released.
      expect(await store.idempotency.complete(tenant, 'key-4', 'first', { status: 200, body: null }, replayUntil)).toBe(false);
      await store.idempotency.release(tenant, 'key-4', 'first');
      expect((await store.idempotency.get(tenant, 'key-4', now))?.response).toEqual(response);

      const released: IdempotencyRecord = { ...idempotencyRecord('key-5', now, 60_000), owner: 'second', response: null };
      await store.idempotency.putIfAbsent(tenant, released, now);
      await store.idempotency.release(tenant, 'key-5', 'not-the-owner');
      expect(await store.idempotency.get(tenant, 'key-5', now)).toEqual(released);
      await store.idempotency.release(tenant, 'key-5', 'second');
      expect(await store.idempotency.get(tenant, 'key-5', now)).toBeNull();
      expect(await store.idempotency.putIfAbsent(tenant, { ...released, owner: 'third' }, now)).toBe(true);
      // A lease that ran out frees the key for another request; the late owner changes nothing.
      const late = new Date(now.getTime() + 60_000);
      expect(await store.idempotency.putIfAbsent(tenant, { ...released, owner: 'fourth', expiresAt: new Date(late.getTime() + 60_000).toISOString() }, late)).toBe(true);
      expect(await store.idempotency.complete(tenant, 'key-5', 'third', response, replayUntil)).toBe(false);
      expect((await store.idempotency.get(tenant, 'key-5', late))?.owner).toBe('fourth');
    });
  });

  runAuditLinkStoreContract(() => store, () => target, newTenant);
  runAnomalyStoreContract(() => store, () => target, newTenant);
  runWorkflowStoreContract(() => store, () => target, newTenant);
  runWebhookStoreContract(() => store, () => target, newTenant);

  describe('concurrency proof', () => {
    it('8 processes × 500 appends to one tenant: every record linked once, in each process\'s order, and the chain verifies', async () => {
      const tenant = newTenant('race-chain');
      const processes = 8;
      const appends = 500;
      const trails = createProcessTrails();
      // Which process's linker linked each record: the holder links what the others stored.
      const linkedBy = new Map<string, number[]>();
      const opened = await Promise.all(
        Array.from({ length: processes }, async (_, p) =>
          trails.open((await target.connect()).auditLinks, {
            recorder: { batchSize: 50, flushIntervalMs: 1 },
            linker: {
              batchSize: 64,
              onLinked: (_tenant, records) => {
                for (const record of records) linkedBy.set(record.id, [...(linkedBy.get(record.id) ?? []), p]);
              },
            },
          })),
      );
      let receipts: AuditReceipt[][];
      try {
        receipts = await Promise.all(
          opened.map((trail, p) =>
            Promise.all(Array.from({ length: appends }, (_, i) =>
              trail.recorder.append(tenant, { eventType: 'POLICY_EVALUATED', actorId: `process-${p}`, payload: { p, i } })))),
        );
        await trails.linked();
      } finally {
        await trails.close();
      }

      const chain = await collect(store.audit.scan(tenant, 1, 1000));
      expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: processes * appends }, (_, i) => i + 1));
      const seqOf = new Map(chain.map((r) => [r.id, r.seq]));
      // Every receipt's record is in the chain exactly once, and nothing else is.
      const ids = receipts.flat().map((r) => r.id);
      expect(new Set(ids).size).toBe(processes * appends);
      expect(seqOf.size).toBe(chain.length);
      expect([...seqOf.keys()].sort()).toEqual([...ids].sort());
      for (const [id, by] of linkedBy) expect(by, id).toHaveLength(1);
      expect(linkedBy.size).toBe(processes * appends);
      // Each process's records are in the chain in the order it appended them.
      for (const own of receipts) {
        const seqs = own.map((r) => seqOf.get(r.id)!);
        expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      }
      // What each process answered is what the chain holds: the content hash of each linked record is its receipt's.
      const receiptHash = new Map(receipts.flat().map((r) => [r.id, r.contentHash]));
      for (const { id, eventType, policyModule, policyFunction, actorId, occurredAt, payload } of chain) {
        expect(computeAuditContentHash(id, { eventType, policyModule, policyFunction, actorId, occurredAt, payload }), id).toBe(receiptHash.get(id));
      }
      const verification = await verifyChain(store.audit, tenant, { pageSize: 700 });
      expect(verification).toMatchObject({ valid: true, checked: 4000, headSeq: 4000, firstInvalidSeq: null });
      expect(await store.auditLinks.unlinkedSummary(tenant)).toEqual({ count: 0, oldestStoredAt: null });
      // The processes really shared the tenant: records stored by one were linked by another's linker.
      const storedBy = new Map(receipts.flatMap((own, p) => own.map((r) => [r.id, p] as const)));
      expect([...linkedBy].some(([id, [p]]) => p !== storedBy.get(id))).toBe(true);
    }, 180_000);
  });

  runPolicyStoreContract(() => store, () => target);
}

function idempotencyRecord(key: string, now: Date, ttlMs: number): IdempotencyRecord {
  return {
    key,
    requestHash: 'a1b2c3',
    owner: 'owner-1',
    response: { status: 200, body: { id: 'anomaly-1', status: 'RESOLVED', nested: { list: [1, 'two', null] } } },
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
  };
}
