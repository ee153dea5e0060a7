// How the MongoDB adapter links without transactions (FerretDB 1.24 has none, and no compare-and-set
// update): a link is its log entry, then the chain records, then the removal of the unlinked ones.
// A writer that stops between them leaves a link that the next take of the lease finishes; a holder
// that lost its lease appends nothing, whatever the head document says.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from 'mongodb';
import { findAuditRecord, verifyChain, type AuditLinkRepository, type AuditRecord, type UnlinkedAuditRecord } from '../../src/audit/index.js';
import { COLLECTIONS, openMongoStore, type MongoStore } from '../../src/store/index.js';
import { createMongoAuditLinkRepository } from '../../src/store/mongo/mongo-audit-link-repository.js';
import { buildUnlinked, describeWithMongo, dropMongoDatabase, linkOn, uniqueDatabaseName } from '../support/index.js';

const T0 = Date.parse('2026-06-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

type Fault = (original: (...args: unknown[]) => Promise<unknown>, args: unknown[]) => Promise<unknown>;

/** `db` whose collection `name` answers `method` through `fault` (the driver's objects otherwise). */
function withFault(db: Db, name: string, method: string, fault: Fault): Db {
  const bound = (target: object, key: PropertyKey) => {
    const value: unknown = Reflect.get(target, key, target);
    return typeof value === 'function' ? value.bind(target) : value;
  };
  return new Proxy(db, {
    get(target, key) {
      if (key !== 'collection') return bound(target, key);
      return (collectionName: string) => {
        const collection = target.collection(collectionName);
        if (collectionName !== name) return collection;
        return new Proxy(collection, {
          get: (c, k) => (k === method ? (...args: unknown[]) => fault(bound(c, k) as (...a: unknown[]) => Promise<unknown>, args) : bound(c, k)),
        });
      };
    },
  });
}

/** Fails the first call (after letting `before` happen), then passes every call through. */
function failOnce(before: (original: (...args: unknown[]) => Promise<unknown>, args: unknown[]) => Promise<void> = async () => {}): Fault {
  let failed = false;
  return async (original, args) => {
    if (failed) return original(...args);
    failed = true;
    await before(original, args);
    throw new Error('connection reset by the test');
  };
}

describeWithMongo('audit linking on MongoDB without transactions', (url) => {
  const database = uniqueDatabaseName('pe_test_audit_link');
  let store: MongoStore;
  let other: MongoStore;
  let tenants = 0;
  const newTenant = () => `link-${(tenants += 1)}`;

  beforeAll(async () => {
    store = await openMongoStore({ url, database });
    other = await openMongoStore({ url, database });
  });

  afterAll(async () => {
    await store?.close();
    await other?.close();
    await dropMongoDatabase(url, database);
  });

  const storeRecords = (tenantId: string, records: readonly UnlinkedAuditRecord[]) =>
    store.auditLinks.storeUnlinked(records.map((record) => ({ tenantId, record })));
  const chainOf = async (tenantId: string) => {
    const out: AuditRecord[] = [];
    for await (const record of store.audit.scan(tenantId, 1, 100)) out.push(record);
    return out;
  };

  /** Stores five records and has `h1`, through `links`, fail to link them; returns what it built. */
  async function halfLinked(tenantId: string, links: AuditLinkRepository): Promise<AuditRecord[]> {
    await storeRecords(tenantId, buildUnlinked(Array.from({ length: 5 }, () => ({}))));
    const lease = await links.takeLease(tenantId, 'h1', at(10), at(0));
    const built = linkOn(lease!.head, await links.unlinked(tenantId, 10));
    await expect(links.link(tenantId, lease!, built)).rejects.toThrow(/connection reset by the test/);
    // Whatever was written, every record is found, linked or not.
    for (const record of built) {
      expect(await findAuditRecord({ chain: store.audit, links: store.auditLinks }, tenantId, record.id)).not.toBeNull();
    }
    return built;
  }

  const faults: [string, string, string, Fault, number][] = [
    ['before any chain record', COLLECTIONS.audit, 'insertMany', failOnce(), 0],
    ['after two of its five chain records', COLLECTIONS.audit, 'insertMany', failOnce(async (insert, [docs, options]) => {
      await insert((docs as unknown[]).slice(0, 2), options);
    }), 2],
    ['after its chain records, before removing the unlinked ones', COLLECTIONS.unlinked, 'deleteMany', failOnce(), 5],
  ];

  for (const [when, collection, method, fault, inChain] of faults) {
    it(`finishes a link its writer left ${when} at the next holder's take, writing no record twice`, async () => {
      const tenant = newTenant();
      const faulty = createMongoAuditLinkRepository(withFault(store.raw.db, collection, method, fault));
      const built = await halfLinked(tenant, faulty);
      expect(await chainOf(tenant)).toEqual(built.slice(0, inChain));
      expect(await store.auditLinks.unlinked(tenant, 10)).toHaveLength(5);

      const taken = await other.auditLinks.takeLease(tenant, 'h2', at(30), at(11));
      expect(taken?.head).toEqual({ seq: 5, hash: built[4]!.hash });
      expect(await chainOf(tenant)).toEqual(built);
      expect(await store.auditLinks.unlinkedSummary(tenant)).toEqual({ count: 0, oldestStoredAt: null });

      // The new holder links on; the old one, whose store answers again, links nothing.
      const later = buildUnlinked([{}, {}]);
      await storeRecords(tenant, later);
      const stale = { holder: 'h1', epoch: 1, until: at(10) };
      expect(await faulty.link(tenant, stale, linkOn(taken!.head, later))).toBe(false);
      expect(await other.auditLinks.link(tenant, taken!, linkOn(taken!.head, later))).toBe(true);
      const chain = await chainOf(tenant);
      expect(chain.map((r) => r.id)).toEqual([...built, ...later].map((r) => r.id));
      expect(await verifyChain(store.audit, tenant)).toMatchObject({ valid: true, checked: 7, headSeq: 7 });
    });
  }

  it("finishes its own half-written link at its holder's next renewal", async () => {
    const tenant = newTenant();
    const built = await halfLinked(tenant, createMongoAuditLinkRepository(withFault(store.raw.db, COLLECTIONS.audit, 'insertMany', failOnce())));
    const renewed = await other.auditLinks.takeLease(tenant, 'h1', at(20), at(5));
    expect(renewed).toMatchObject({ holder: 'h1', epoch: 1, head: { seq: 5, hash: built[4]!.hash } });
    expect(await chainOf(tenant)).toEqual(built);
    expect(await store.auditLinks.unlinked(tenant, 10)).toEqual([]);
  });

  it('refuses to finish a link from records that do not hash to the head its entry recorded, writing nothing', async () => {
    const tenant = newTenant();
    await halfLinked(tenant, createMongoAuditLinkRepository(withFault(store.raw.db, COLLECTIONS.audit, 'insertMany', failOnce())));
    const [victim] = await store.auditLinks.unlinked(tenant, 1);
    const { storedAt: _s, ...content } = victim!;
    await store.raw.db
      .collection<{ _id: string }>(COLLECTIONS.unlinked)
      .updateOne({ _id: `${tenant}:${victim!.id}` }, { $set: { record: JSON.stringify({ ...content, payload: { edited: true } }) } });
    await expect(other.auditLinks.takeLease(tenant, 'h2', at(30), at(11))).rejects.toThrow(/do not hash to the head the link log recorded; nothing was written/);
    expect(await chainOf(tenant)).toEqual([]);
    expect(await store.auditLinks.unlinked(tenant, 10)).toHaveLength(5);
  });

  it('lets a holder whose lease was taken append nothing when the head document missed the take, and its claims hold no one up', async () => {
    const tenant = newTenant();
    const stored = buildUnlinked([{}, {}, {}]);
    await storeRecords(tenant, stored);
    const heads = store.raw.db.collection<{ _id: string }>(COLLECTIONS.chainHeads);
    const stale = await store.auditLinks.takeLease(tenant, 'h1', at(10), at(0));
    const asTaken = await heads.findOne({ _id: tenant });
    const current = await other.auditLinks.takeLease(tenant, 'h2', at(30), at(11));
    // The take-over's write of the head document lost to a concurrent one (FerretDB loses updates).
    await heads.replaceOne({ _id: tenant }, asTaken!);
    expect(await store.auditLinks.link(tenant, stale!, linkOn(null, stored))).toBe(false);
    expect(await chainOf(tenant)).toEqual([]);
    expect(await store.auditLinks.unlinked(tenant, 10)).toEqual(stored);
    expect(await other.auditLinks.link(tenant, current!, linkOn(null, stored))).toBe(true);
    expect((await chainOf(tenant)).map((r) => r.id)).toEqual(stored.map((r) => r.id));
    expect(await verifyChain(store.audit, tenant)).toMatchObject({ valid: true, checked: 3 });
  });

  it('rebuilds a lost head document from the log: the lease it names still runs', async () => {
    const tenant = newTenant();
    const stored = buildUnlinked([{}]);
    await storeRecords(tenant, stored);
    const lease = await store.auditLinks.takeLease(tenant, 'h1', at(10), at(0));
    expect(await store.auditLinks.link(tenant, lease!, linkOn(null, stored))).toBe(true);
    await store.raw.db.collection<{ _id: string }>(COLLECTIONS.chainHeads).deleteOne({ _id: tenant });
    expect(await other.auditLinks.takeLease(tenant, 'h2', at(20), at(5))).toBeNull();
    const taken = await other.auditLinks.takeLease(tenant, 'h2', at(30), at(11));
    expect(taken?.epoch).toBeGreaterThan(lease!.epoch);
    expect(taken?.head).toEqual({ seq: 1, hash: linkOn(null, stored)[0]!.hash });
  });
});
