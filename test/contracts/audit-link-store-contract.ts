import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  createAuditLinker,
  GENESIS_PREVIOUS_HASH,
  verifyChain,
  type AuditRecord,
  type HeldLease,
  type UnlinkedAuditRecord,
} from '../../src/audit/index.js';
import { StoreArgumentError, type Store } from '../../src/store/index.js';
import { buildUnlinked, linkOn } from '../support/audit-records.js';
import type { StoreTarget } from '../support/store-targets.js';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const T0 = Date.parse('2026-06-01T00:00:00.000Z');
/** An instant `seconds` after T0. */
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** `count` records stored at T0 (the order they are stored in is their order). */
const unlinked = (count: number) => buildUnlinked(Array.from({ length: count }, () => ({})));

/**
 * Records stored before their link, and the linker leases: what every adapter must do, including
 * what a holder that lost its lease may not do and the races a lease must decide without
 * transactions.
 */
export function runAuditLinkStoreContract(getStore: () => Store, getTarget: () => StoreTarget, newTenant: (label: string) => string): void {
  const links = () => getStore().auditLinks;
  const store = (tenantId: string, records: readonly UnlinkedAuditRecord[]) =>
    links().storeUnlinked(records.map((record) => ({ tenantId, record })));
  const take = async (tenantId: string, holder: string, untilSeconds: number, nowSeconds: number): Promise<HeldLease> => {
    const lease = await links().takeLease(tenantId, holder, at(untilSeconds), at(nowSeconds));
    expect(lease).not.toBeNull();
    return lease!;
  };
  const chainOf = (tenantId: string) => collect(getStore().audit.scan(tenantId, 1, 100));

  describe('audit linking: stored records', () => {
    it('stores records of several tenants in one write, each (tenant, id) once, and returns them oldest first', async () => {
      const a = newTenant('unlinked-a');
      const b = newTenant('unlinked-b');
      const [a1, a2, a3] = unlinked(3) as [UnlinkedAuditRecord, UnlinkedAuditRecord, UnlinkedAuditRecord];
      const [b1] = buildUnlinked([{ eventType: 'POLICY_DEPLOYED', policyModule: null, policyFunction: null, payload: { 'dotted.key': 1, $dollar: 'kept', text: 'Zürich 😀' } }]);
      await links().storeUnlinked([{ tenantId: a, record: a1 }, { tenantId: b, record: b1! }, { tenantId: a, record: a2 }]);
      // Stored again (the same record written twice) among new ones: kept as first stored.
      await links().storeUnlinked([{ tenantId: a, record: { ...a1, payload: { changed: true } } }, { tenantId: a, record: a3 }]);
      await links().storeUnlinked([]);
      expect(await links().unlinked(a, 10)).toEqual([a1, a2, a3]);
      expect(await links().unlinked(a, 2)).toEqual([a1, a2]);
      expect(await links().unlinked(b, 10)).toEqual([b1]);
      expect(await links().findUnlinked(a, a2.id)).toEqual(a2);
      expect(await links().findUnlinked(b, a2.id)).toBeNull();
      expect(await links().findUnlinked(a, 'no-such-id')).toBeNull();
      expect(await (await getTarget().connect()).auditLinks.unlinked(a, 10)).toEqual([a1, a2, a3]);
    });

    it('refuses records it could not store faithfully, and bad limits', async () => {
      const tenant = newTenant('unlinked-bad');
      const [record] = unlinked(1);
      await expect(links().storeUnlinked([{ tenantId: tenant, record: { ...record!, contentHash: 'A'.repeat(64) } }])).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(links().storeUnlinked([{ tenantId: '', record: record! }])).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(links().unlinked(tenant, 0)).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await links().unlinked(tenant, 10)).toEqual([]);
    });

    it('counts what waits and names the tenants waiting longest first', async () => {
      // Stored in 2001, before anything other cases store, so that the cross-tenant reads see only these.
      const stored = (seconds: number) => new Date(Date.UTC(2001, 0, 1) + seconds * 1000).toISOString();
      const a = newTenant('waiting-a');
      const b = newTenant('waiting-b');
      const c = newTenant('waiting-c');
      await store(a, buildUnlinked([{ storedAt: stored(20) }, { storedAt: stored(10) }]));
      const [fromB] = buildUnlinked([{ storedAt: stored(5) }]);
      await store(b, [fromB!]);
      await store(c, buildUnlinked([{ storedAt: stored(30) }]));
      expect(await links().unlinkedSummary(a)).toEqual({ count: 2, oldestStoredAt: stored(10) });
      expect(await links().unlinkedSummary(newTenant('waiting-none'))).toEqual({ count: 0, oldestStoredAt: null });
      expect(await links().tenantsWaiting(stored(25), 10)).toEqual([b, a]);
      expect(await links().tenantsWaiting(stored(31), 2)).toEqual([b, a]);
      expect(await links().tenantsWaiting(stored(5), 10)).toEqual([]);
      const lease = await take(b, 'waiting-linker', 60, 0);
      expect(await links().link(b, lease, linkOn(null, [fromB!]))).toBe(true);
      expect(await links().tenantsWaiting(stored(31), 10)).toEqual([a, c]);
      expect(await links().unlinkedSummary(b)).toEqual({ count: 0, oldestStoredAt: null });
      await expect(links().tenantsWaiting('soon', 10)).rejects.toThrow(/storedBefore must be an ISO 8601/);
    });
  });

  describe('audit linking: leases', () => {
    it('takes a lease, renews it for its holder, refuses it to others while it runs and hands it over once it ended', async () => {
      const tenant = newTenant('lease');
      const first = await take(tenant, 'h1', 10, 0);
      expect(first).toMatchObject({ holder: 'h1', until: at(10), head: null });
      expect(first.epoch).toBeGreaterThanOrEqual(1);
      expect(await links().takeLease(tenant, 'h2', at(20), at(5))).toBeNull();
      const renewed = await take(tenant, 'h1', 30, 5);
      expect(renewed).toEqual({ ...first, until: at(30) });
      expect(await links().takeLease(tenant, 'h2', at(40), at(29))).toBeNull();
      const taken = await take(tenant, 'h2', 50, 31);
      expect(taken.holder).toBe('h2');
      expect(taken.epoch).toBeGreaterThan(first.epoch);
      expect(await links().takeLease(tenant, 'h1', at(60), at(32))).toBeNull();
      // Whatever spelling of the instants.
      expect(await links().takeLease(tenant, 'h2', '2026-06-01T01:01:10+01:00', '2026-06-01T00:00:40Z')).toEqual({ ...taken, until: at(70) });
      await expect(links().takeLease(tenant, '', at(10), at(0))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(links().takeLease(tenant, 'h1', 'later', at(0))).rejects.toThrow(/until must be an ISO 8601/);
    });

    it('starts the head from the chain as stored', async () => {
      const tenant = newTenant('lease-stored');
      const records = linkOn(null, unlinked(3));
      for (const record of records) await getTarget().rawInsertAudit(tenant, record);
      expect((await take(tenant, 'h1', 10, 0)).head).toEqual({ seq: 3, hash: records[2]!.hash });
    });

    it('lets another holder take a released lease at once; a release by a holder that lost the lease changes nothing', async () => {
      const tenant = newTenant('release');
      const first = await take(tenant, 'h1', 60, 0);
      await links().releaseLease(tenant, first);
      const second = await take(tenant, 'h2', 60, 1);
      expect(second.epoch).toBeGreaterThan(first.epoch);
      await links().releaseLease(tenant, first);
      expect(await links().takeLease(tenant, 'h3', at(60), at(2))).toBeNull();
      // Released by its holder, it goes to another at once, with a new epoch.
      await links().releaseLease(tenant, second);
      expect((await take(tenant, 'h1', 60, 3)).epoch).toBeGreaterThan(second.epoch);
    });

    it('gives the lease to exactly one of many concurrent takers, of a new tenant and of an ended lease', async () => {
      const tenant = newTenant('lease-race');
      const stores = [getStore(), ...(await Promise.all(Array.from({ length: 5 }, () => getTarget().connect())))];
      const race = (holders: (i: number, j: number) => string, until: number, now: number) =>
        Promise.all(stores.flatMap((s, i) => [0, 1].map((j) => s.auditLinks.takeLease(tenant, holders(i, j), at(until), at(now)))));
      const firsts = (await race((i, j) => `h${i}-${j}`, 10, 0)).filter((lease) => lease !== null);
      expect(firsts).toHaveLength(1);
      // Its holder is gone: the others race for the ended lease.
      const seconds = (await race((i, j) => `next${i}-${j}`, 30, 11)).filter((lease) => lease !== null);
      expect(seconds).toHaveLength(1);
      expect(seconds[0]!.epoch).toBeGreaterThan(firsts[0]!.epoch);
      expect(await links().takeLease(tenant, firsts[0]!.holder, at(40), at(12))).toBeNull();
    });
  });

  describe('audit linking: link', () => {
    it('puts records into the chain as given and removes them from the unlinked ones', async () => {
      const tenant = newTenant('link');
      const stored = buildUnlinked([{}, { eventType: 'POLICY_DEPLOYED', policyFunction: null }, { payload: { nested: { list: [1, 2.5, null, 'x'] }, big: 9007199254740991 } }]);
      await store(tenant, stored);
      const lease = await take(tenant, 'h1', 60, 0);
      const first = linkOn(lease.head, await links().unlinked(tenant, 2));
      expect(await links().link(tenant, lease, first)).toBe(true);
      expect(await links().unlinked(tenant, 10)).toEqual([stored[2]]);
      expect(await links().findUnlinked(tenant, stored[0]!.id)).toBeNull();
      const second = linkOn({ seq: 2, hash: first[1]!.hash }, await links().unlinked(tenant, 10));
      expect(await links().link(tenant, lease, second)).toBe(true);

      const chain = [...first, ...second];
      expect(chain.map((r) => r.id)).toEqual(stored.map((r) => r.id));
      expect(await chainOf(tenant)).toEqual(chain);
      expect(await getStore().audit.list(tenant, { limit: 10 })).toEqual([...chain].reverse());
      expect(await getStore().audit.findById(tenant, stored[1]!.id)).toEqual(chain[1]);
      expect(await verifyChain(getStore().audit, tenant)).toMatchObject({ valid: true, checked: 3, headSeq: 3 });
      expect(await links().unlinkedSummary(tenant)).toEqual({ count: 0, oldestStoredAt: null });
      // The head the lease reports is the linked one, for its holder and for the next.
      expect((await take(tenant, 'h1', 70, 1)).head).toEqual({ seq: 3, hash: chain[2]!.hash });
      expect((await take(tenant, 'h2', 90, 71)).head).toEqual({ seq: 3, hash: chain[2]!.hash });
    });

    it('where a link is one write, links records stored nowhere yet (stored and linked at once), and never for a stale holder', async () => {
      // SQLite links in one transaction; MongoDB's link is several writes, whose recovery needs the records stored first.
      expect(links().linksInOneWrite).toBe(getStore().kind === 'sqlite');
      if (!links().linksInOneWrite) return;
      const tenant = newTenant('link-at-once');
      const fresh = unlinked(2);
      const stale = await take(tenant, 'h1', 10, 0);
      const current = await take(tenant, 'h2', 30, 11);
      expect(await links().link(tenant, stale, linkOn(stale.head, fresh))).toBe(false);
      expect(await chainOf(tenant)).toEqual([]);
      const linked = linkOn(current.head, fresh);
      // As the linker sends them: each payload's canonical text made at its append, and nothing to remove from the unlinked records.
      const sent = linked.map((record) => ({ ...record, payloadText: canonicalJson(record.payload) }));
      expect(await links().link(tenant, current, sent, { unstored: true })).toBe(true);
      expect(await chainOf(tenant)).toEqual(linked);
      expect(await links().unlinkedSummary(tenant)).toEqual({ count: 0, oldestStoredAt: null });
      expect(await verifyChain(getStore().audit, tenant)).toMatchObject({ valid: true, checked: 2 });
    });

    it('links nothing for a holder that lost its lease, and lets the new holder link the same records', async () => {
      const tenant = newTenant('link-stale');
      const stored = unlinked(3);
      await store(tenant, stored);
      const stale = await take(tenant, 'h1', 10, 0);
      const built = linkOn(stale.head, await links().unlinked(tenant, 10));
      const current = await take(tenant, 'h2', 30, 11);
      expect(await links().link(tenant, stale, built)).toBe(false);
      expect(await (await getTarget().connect()).auditLinks.link(tenant, stale, built)).toBe(false);
      expect(await chainOf(tenant)).toEqual([]);
      expect(await links().unlinked(tenant, 10)).toEqual(stored);
      expect(await links().link(tenant, current, linkOn(current.head, stored))).toBe(true);
      expect(await chainOf(tenant)).toEqual(built);
      // Its next batch too: once fenced, always fenced.
      const [later] = unlinked(1);
      await store(tenant, [later!]);
      expect(await links().link(tenant, stale, linkOn({ seq: 3, hash: built[2]!.hash }, [later!]))).toBe(false);
      expect(await links().unlinked(tenant, 10)).toEqual([later]);
    });

    it('links nothing built on another head than the chain has', async () => {
      const tenant = newTenant('link-head');
      const stored = unlinked(3);
      await store(tenant, stored);
      const lease = await take(tenant, 'h1', 60, 0);
      // On an empty chain: a first record whose previousHash is not the genesis hash, or that is not seq 1.
      expect(await links().link(tenant, lease, linkOn({ seq: 0, hash: 'b'.repeat(64) }, stored.slice(0, 2)))).toBe(false);
      expect(await links().link(tenant, lease, linkOn({ seq: 1, hash: GENESIS_PREVIOUS_HASH }, stored.slice(0, 2)))).toBe(false);
      expect(await chainOf(tenant)).toEqual([]);
      const first = linkOn(null, stored.slice(0, 2));
      expect(await links().link(tenant, lease, first)).toBe(true);
      // Built on no head, on an old one, on a wrong hash (a wrong previousHash), past the head (a gap).
      expect(await links().link(tenant, lease, linkOn(null, stored.slice(2)))).toBe(false);
      expect(await links().link(tenant, lease, linkOn({ seq: 1, hash: first[0]!.hash }, stored.slice(2)))).toBe(false);
      expect(await links().link(tenant, lease, linkOn({ seq: 2, hash: 'a'.repeat(64) }, stored.slice(2)))).toBe(false);
      expect(await links().link(tenant, lease, linkOn({ seq: 3, hash: first[1]!.hash }, stored.slice(2)))).toBe(false);
      expect(await chainOf(tenant)).toEqual(first);
      expect(await links().unlinked(tenant, 10)).toEqual([stored[2]]);
      expect(await links().link(tenant, lease, linkOn({ seq: 2, hash: first[1]!.hash }, stored.slice(2)))).toBe(true);
      expect(await verifyChain(getStore().audit, tenant)).toMatchObject({ valid: true, checked: 3 });
    });

    it('refuses a batch that is not consecutive and linked, or holds a record twice, writing nothing', async () => {
      const tenant = newTenant('link-bad');
      const stored = unlinked(3);
      await store(tenant, stored);
      const lease = await take(tenant, 'h1', 60, 0);
      const [a, b, c] = linkOn(null, stored) as [AuditRecord, AuditRecord, AuditRecord];
      await expect(links().link(tenant, lease, [])).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(links().link(tenant, lease, [a, c])).rejects.toThrow(/expected seq 2/);
      await expect(links().link(tenant, lease, [a, { ...b, previousHash: c.hash }])).rejects.toThrow(/previousHash/);
      await expect(links().link(tenant, lease, linkOn(null, [stored[0]!, stored[0]!]))).rejects.toThrow(/each record id once/);
      await expect(links().link(tenant, { ...lease, epoch: 0 }, [a])).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await chainOf(tenant)).toEqual([]);
      expect(await links().unlinked(tenant, 10)).toEqual(stored);
    });

    it('keeps tenants apart: their records, leases and links', async () => {
      const a = newTenant('link-iso-a');
      const b = newTenant('link-iso-b');
      const fromA = unlinked(2);
      const fromB = unlinked(2);
      await store(a, fromA);
      await store(b, fromB);
      const leaseA = await take(a, 'h1', 60, 0);
      const leaseB = await take(b, 'h2', 60, 0);
      expect(await links().link(b, leaseA, linkOn(null, fromB))).toBe(false);
      expect(await links().link(a, leaseA, linkOn(null, fromA))).toBe(true);
      expect(await links().unlinked(b, 10)).toEqual(fromB);
      expect(await chainOf(b)).toEqual([]);
      // B's chain has its own seq 1 and 2.
      expect(await links().link(b, leaseB, linkOn(null, fromB))).toBe(true);
      expect((await chainOf(a)).map((r) => r.id)).toEqual(fromA.map((r) => r.id));
      expect((await chainOf(b)).map((r) => r.id)).toEqual(fromB.map((r) => r.id));
    });
  });

  describe('audit linking: with the linker', () => {
    it('never links a record with a given id twice, also when it is stored again after its link', async () => {
      const tenant = newTenant('link-again');
      const errors: unknown[] = [];
      const linker = createAuditLinker(links(), { holder: 'again', onError: (error) => errors.push(error) });
      const runUntilNoneWait = async () => {
        // A round that finds a record already linked only drops it (an adapter may refuse the batch).
        for (let round = 0; round < 3 && (await links().unlinkedSummary(tenant)).count > 0; round += 1) {
          linker.notify(tenant);
          await linker.settled();
        }
      };
      // An owed record: its id was given, so it may be stored again (a generated id never is).
      const [first, second] = unlinked(2).map((record) => ({ ...record, givenId: true as const }));
      await store(tenant, [first!]);
      await runUntilNoneWait();
      await store(tenant, [first!, second!]);
      await runUntilNoneWait();
      await linker.stop();
      expect((await chainOf(tenant)).map((r) => r.id)).toEqual([first!.id, second!.id]);
      expect(await links().unlinkedSummary(tenant)).toEqual({ count: 0, oldestStoredAt: null });
      expect(await verifyChain(getStore().audit, tenant)).toMatchObject({ valid: true, checked: 2 });
      // What an adapter may report for the dropped record, and nothing else.
      for (const error of errors) expect(String(error)).toMatch(/in the chain already/);
    });

    it('links every record exactly once while linkers on separate connections take the lease from each other at every turn', async () => {
      const tenant = newTenant('link-race');
      const connections = [getStore(), ...(await Promise.all(Array.from({ length: 3 }, () => getTarget().connect())))];
      const errors: unknown[] = [];
      // A lease of 1 ms has ended by the next turn of any other linker: they keep taking it over.
      const linkers = connections.map((s, i) =>
        createAuditLinker(s.auditLinks, { holder: `racer-${i}`, leaseMs: 1, batchSize: 7, onError: (error) => errors.push(error) }));
      const stored: UnlinkedAuditRecord[] = [];
      for (let round = 0; round < 10; round += 1) {
        const batch = unlinked(12);
        stored.push(...batch);
        await connections[round % connections.length]!.auditLinks.storeUnlinked(batch.map((record) => ({ tenantId: tenant, record })));
        for (const linker of linkers) linker.notify(tenant);
      }
      for (let round = 0; round < 200 && (await links().unlinkedSummary(tenant)).count > 0; round += 1) {
        for (const linker of linkers) linker.notify(tenant);
        await Promise.all(linkers.map((linker) => linker.settled()));
      }
      await Promise.all(linkers.map((linker) => linker.stop()));
      expect(errors).toEqual([]);
      const chain = await collect(getStore().audit.scan(tenant, 1, 1000));
      expect(chain.map((r) => r.id).sort()).toEqual(stored.map((r) => r.id).sort());
      expect(await verifyChain(getStore().audit, tenant, { pageSize: 50 })).toMatchObject({ valid: true, checked: stored.length, headSeq: stored.length });
      expect(await links().unlinkedSummary(tenant)).toEqual({ count: 0, oldestStoredAt: null });
    }, 180_000);
  });
}
