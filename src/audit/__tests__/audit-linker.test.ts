import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import {
  AuditRecorderClosedError,
  computeAuditContentHash,
  computeAuditHash,
  createAuditLinker,
  createAuditRecorder,
  createAuditTrail,
  GENESIS_PREVIOUS_HASH,
  owedRecordId,
  verifyChain,
  type AuditEvent,
  type AuditLinkRepository,
  type AuditRecord,
  type AuditTrail,
} from '../index.js';

const event = (n: number, extra: Partial<AuditEvent> = {}): AuditEvent => ({
  eventType: 'POLICY_EVALUATED',
  policyModule: 'com.acme.loans',
  policyFunction: 'eligible',
  actorId: 'svc',
  payload: { n },
  ...extra,
});

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** A clock that moves only when told: leases run out without waiting for them. */
function manualClock(start = '2026-01-01T00:00:00.000Z') {
  let at = Date.parse(start);
  return {
    now: () => new Date(at),
    advance(ms: number) {
      at += ms;
    },
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

describe('the audit linker', () => {
  let store: SqliteStore;

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
  });
  afterEach(async () => {
    await store.close();
  });

  async function chainOf(tenantId: string): Promise<AuditRecord[]> {
    const out: AuditRecord[] = [];
    for await (const record of store.audit.scan(tenantId, 1, 100)) out.push(record);
    return out;
  }

  const unlinkedCount = async (tenantId: string) => (await store.auditLinks.unlinkedSummary(tenantId)).count;

  /** Who holds the tenant's lease, and at which epoch, as stored. */
  const leaseOf = (tenantId: string) =>
    store.raw.prepare('SELECT holder, epoch FROM audit_chain_heads WHERE tenant_id = ?').get(tenantId) as { holder: string; epoch: number } | undefined;

  /** True when a third holder could take the tenant's lease at `at` (it gives it back at once). */
  async function leaseIsFree(tenantId: string, at: Date): Promise<boolean> {
    const lease = await store.auditLinks.takeLease(tenantId, 'probe', new Date(at.getTime() + 1).toISOString(), at.toISOString());
    if (lease !== null) await store.auditLinks.releaseLease(tenantId, lease);
    return lease !== null;
  }

  /** The SQLite repository as a store whose links are several writes: records are stored unlinked first. */
  const twoWrites = (): AuditLinkRepository => ({ ...store.auditLinks, linksInOneWrite: false });

  describe('through createAuditTrail', () => {
    it('stores and links in one write the records of a tenant whose lease this process holds, with nothing of it waiting', async () => {
      const lags: number[] = [];
      const trail = createAuditTrail(store.auditLinks, { linker: { onLinked: (_tenantId, _records, lagMs) => lags.push(...lagMs) } });
      // The first append takes the lease: its record is linked in the write that stores it too.
      await trail.recorder.append('acme', event(0));
      expect(await unlinkedCount('acme')).toBe(0);
      expect(leaseOf('acme')).toMatchObject({ holder: trail.linker.holder, epoch: 1 });
      const inserts = trail.recorder.stats().batches;
      const receipts = await Promise.all(range(1, 4).map((n) => trail.recorder.append('acme', event(n))));
      // Linked before the appends resolved: no turn of the linker ran, nothing waits.
      const chain = await chainOf('acme');
      expect(chain.map((r) => r.payload.n)).toEqual(range(0, 4));
      expect(chain.slice(1).map((r) => r.id)).toEqual(receipts.map((r) => r.id));
      for (const [i, receipt] of receipts.entries()) expect(computeAuditContentHash(receipt.id, chain[i + 1]!)).toBe(receipt.contentHash);
      expect(await unlinkedCount('acme')).toBe(0);
      expect(trail.recorder.stats().batches).toBe(inserts + 1);
      expect(lags).toEqual([0, 0, 0, 0]);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 4 });
      await trail.close();
    });

    it('stores unlinked first where the store links in several writes, whoever holds the lease', async () => {
      const trail = createAuditTrail(twoWrites());
      await trail.recorder.append('acme', event(0));
      await trail.flush();
      await trail.recorder.append('acme', event(1));
      // The append resolved once stored; the linker's turn has not run yet.
      expect(await unlinkedCount('acme')).toBe(1);
      await trail.flush();
      expect((await chainOf('acme')).map((r) => r.payload.n)).toEqual([0, 1]);
      await trail.close();
    });

    it('stores unlinked the records of a tenant another process holds, and a record with a given id', async () => {
      const clock = manualClock();
      const one = createAuditTrail(store.auditLinks, { linker: { holder: 'one', now: clock.now }, recorder: { now: clock.now } });
      const two = createAuditTrail(store.auditLinks, { linker: { holder: 'two', now: clock.now }, recorder: { now: clock.now } });
      await one.recorder.append('acme', event(0));
      await one.flush();
      await two.recorder.append('acme', event(1));
      await two.flush();
      expect(await unlinkedCount('acme')).toBe(1);
      one.linker.notify('acme', { heard: true });
      await one.flush();
      // A given id may be in the chain already: it is looked for there by a turn, not linked at once.
      await one.recorder.append('acme', event(2), { id: owedRecordId('test', 'given-1') });
      expect(await unlinkedCount('acme')).toBe(1);
      await one.flush();
      expect((await chainOf('acme')).map((r) => r.payload.n)).toEqual([0, 1, 2]);
      expect(await unlinkedCount('acme')).toBe(0);
      await one.close();
      await two.close();
    });

    it('a holder whose lease another took over writes nothing at once: the record is stored unlinked and the new holder links it', async () => {
      const early = manualClock();
      const late = manualClock();
      late.advance(120_000);
      const fenced: string[] = [];
      const one = createAuditTrail(store.auditLinks, { linker: { holder: 'one', now: early.now, onFenced: (tenantId) => fenced.push(tenantId) } });
      const two = createAuditTrail(store.auditLinks, { linker: { holder: 'two', now: late.now } });
      await one.recorder.append('acme', event(0));
      await one.flush();
      // By its own clock, two finds one's lease run out and takes it over.
      await two.recorder.append('acme', event(1));
      await two.flush();
      expect(leaseOf('acme')).toMatchObject({ holder: 'two', epoch: 2 });
      // One still believes it holds the lease: the store refuses its link, and the record is stored unlinked.
      await one.recorder.append('acme', event(2));
      expect(fenced).toEqual(['acme']);
      expect(await unlinkedCount('acme')).toBe(1);
      two.linker.notify('acme', { heard: true });
      await two.flush();
      expect((await chainOf('acme')).map((r) => r.payload.n)).toEqual([0, 1, 2]);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 3 });
      await one.close();
      await two.close();
    });

    it('links stored records in stored order into a chain the verifier accepts, each with the content its receipt names', async () => {
      const trail = createAuditTrail(store.auditLinks, { recorder: { batchSize: 100 }, linker: { batchSize: 40 } });
      const receipts = await Promise.all(range(0, 250).map((n) => trail.recorder.append('acme', event(n))));
      await trail.flush();

      const chain = await chainOf('acme');
      expect(chain.map((r) => r.seq)).toEqual(range(1, 251));
      expect(chain.map((r) => r.payload.n)).toEqual(range(0, 250));
      expect(chain.map((r) => r.id)).toEqual(receipts.map((r) => r.id));
      expect(chain[0]!.previousHash).toBe(GENESIS_PREVIOUS_HASH);
      chain.forEach((record, i) => {
        if (i > 0) expect(record.previousHash).toBe(chain[i - 1]!.hash);
        expect(record.hash).toBe(computeAuditHash(record));
        expect(computeAuditContentHash(record.id, record)).toBe(receipts[i]!.contentHash);
      });
      expect(await unlinkedCount('acme')).toBe(0);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 250 });

      const later = await trail.recorder.append('acme', event(250));
      await trail.flush();
      expect(await store.audit.findById('acme', later.id)).toMatchObject({ seq: 251, previousHash: chain[249]!.hash });
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 251 });
      await trail.close();
    });

    it('keeps one chain per tenant', async () => {
      const trail = createAuditTrail(store.auditLinks);
      await Promise.all([trail.recorder.append('tenant-a', event(1)), trail.recorder.append('tenant-b', event(2)), trail.recorder.append('tenant-a', event(3))]);
      await trail.flush();
      const [a, b] = [await chainOf('tenant-a'), await chainOf('tenant-b')];
      expect(a.map((r) => [r.seq, r.payload.n])).toEqual([
        [1, 1],
        [2, 3],
      ]);
      expect(b.map((r) => [r.seq, r.payload.n])).toEqual([[1, 2]]);
      expect(b[0]!.previousHash).toBe(GENESIS_PREVIOUS_HASH);
      expect(a[1]!.previousHash).toBe(a[0]!.hash);
      await expect(verifyChain(store.audit, 'tenant-a')).resolves.toMatchObject({ valid: true, checked: 2 });
      await expect(verifyChain(store.audit, 'tenant-b')).resolves.toMatchObject({ valid: true, checked: 1 });
      await trail.close();
    });

    it('with two linkers on one tenant, one holds the lease and links what the other stores once told of it: nothing lost or doubled', async () => {
      const linkedBy: Record<string, string[]> = { one: [], two: [] };
      const toldBy: Record<string, number> = { one: 0, two: 0 };
      const trails: Record<string, AuditTrail> = {};
      for (const [name, other] of [
        ['one', 'two'],
        ['two', 'one'],
      ] as const) {
        trails[name] = createAuditTrail(store.auditLinks, {
          recorder: { batchSize: 7 },
          linker: {
            holder: name,
            batchSize: 5,
            onLinked: (_tenantId, records) => linkedBy[name]!.push(...records.map((r) => r.id)),
            // Another process's notice, as Redis would carry it.
            onHeldElsewhere: (tenantId) => {
              toldBy[name]! += 1;
              trails[other]!.linker.notify(tenantId, { heard: true });
            },
          },
        });
      }
      const receipts = await Promise.all(range(0, 120).map((n) => trails[n % 2 === 0 ? 'one' : 'two']!.recorder.append('acme', event(n))));
      await Promise.all([trails.one!.flush(), trails.two!.flush()]);
      await trails.one!.flush();
      await trails.two!.flush();

      const lease = leaseOf('acme')!;
      expect(lease.epoch).toBe(1);
      const other = lease.holder === 'one' ? 'two' : 'one';
      expect(linkedBy[other]).toEqual([]);
      expect(toldBy[other]).toBeGreaterThan(0);
      expect(toldBy[lease.holder]).toBe(0);

      const chain = await chainOf('acme');
      expect(chain).toHaveLength(120);
      expect(new Set(chain.map((r) => r.id))).toEqual(new Set(receipts.map((r) => r.id)));
      expect(linkedBy[lease.holder]).toEqual(chain.map((r) => r.id));
      expect(await unlinkedCount('acme')).toBe(0);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 120 });
      await Promise.all([trails.one!.close(), trails.two!.close()]);
    });

    it('links a record stored twice with the same id (an owed record written again) once', async () => {
      const trail = createAuditTrail(store.auditLinks);
      const id = owedRecordId('POLICY_DEPLOYED', 'acme', 'com.acme.loans', '3');
      const deployed = event(1, { eventType: 'POLICY_DEPLOYED', occurredAt: '2026-01-01T00:00:00.000Z' });
      const [first, again] = await Promise.all([trail.recorder.append('acme', deployed, { id }), trail.recorder.append('acme', deployed, { id })]);
      expect(again).toEqual(first);
      await trail.flush();
      // Written again after its link, as by a follower that did not see the first write.
      await expect(trail.recorder.append('acme', deployed, { id })).resolves.toEqual(first);
      await trail.recorder.append('acme', event(2));
      await trail.flush();

      const chain = await chainOf('acme');
      expect(chain.map((r) => [r.seq, r.eventType])).toEqual([
        [1, 'POLICY_DEPLOYED'],
        [2, 'POLICY_EVALUATED'],
      ]);
      expect(chain[0]!.id).toBe(id);
      expect(computeAuditContentHash(id, chain[0]!)).toBe(first.contentHash);
      expect(await unlinkedCount('acme')).toBe(0);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 2 });
      await trail.close();
    });

    it('lets tenants take turns: a backlog holds another tenant back by at most one batch', async () => {
      const order: string[] = [];
      const trail = createAuditTrail(twoWrites(), {
        recorder: { batchSize: 1000 },
        linker: { concurrency: 1, batchSize: 10, maxBatchSize: 80, onLinked: (tenantId, records) => order.push(`${tenantId}:${records.length}`) },
      });
      // One insert: the busy tenant's 60 records, then the quiet tenant's one.
      await Promise.all([...range(0, 60).map((n) => trail.recorder.append('busy', event(n))), trail.recorder.append('quiet', event(0))]);
      await trail.flush();
      // The backlog's batches double after each full one (10, 20, 40, the 30 left).
      expect(order).toEqual(['busy:10', 'quiet:1', 'busy:20', 'busy:30']);
      expect((await chainOf('busy')).map((r) => r.payload.n)).toEqual(range(0, 60));
      await trail.close();
    });

    it('a record linked at once stays linked once, whatever its onLinked callback throws', async () => {
      const errors: unknown[] = [];
      let throwOnce = true;
      const trail = createAuditTrail(store.auditLinks, {
        linker: {
          onLinked: () => {
            if (!throwOnce) return;
            throwOnce = false;
            throw new Error('metrics failed');
          },
          onError: (error) => errors.push(error),
        },
      });
      const receipt = await trail.recorder.append('acme', event(0));
      await trail.recorder.append('acme', event(1));
      await trail.flush();
      expect((await chainOf('acme')).map((r) => r.id).filter((id) => id === receipt.id)).toHaveLength(1);
      expect((await chainOf('acme')).map((r) => r.payload.n)).toEqual([0, 1]);
      expect(await unlinkedCount('acme')).toBe(0);
      expect(errors).toEqual([new Error('metrics failed')]);
      await trail.close();
    });

    it('when the one write fails, its appends fail with the error and the records are written nowhere else; the next write goes on', async () => {
      const failure = new Error('disk I/O error');
      let failNext = false;
      const links: AuditLinkRepository = {
        ...store.auditLinks,
        async link(...args) {
          if (failNext) {
            failNext = false;
            throw failure;
          }
          return store.auditLinks.link(...args);
        },
      };
      const trail = createAuditTrail(links);
      await trail.recorder.append('acme', event(0));
      failNext = true;
      await expect(trail.recorder.append('acme', event(1))).rejects.toBe(failure);
      await trail.recorder.append('acme', event(2));
      await trail.flush();
      expect((await chainOf('acme')).map((r) => r.payload.n)).toEqual([0, 2]);
      expect(await unlinkedCount('acme')).toBe(0);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 2 });
      await trail.close();
    });

    it('when the store is away during the one write, every append waiting fails with it at once, of other tenants too', async () => {
      const away = new Error('store away');
      const tried: string[] = [];
      let isAway = false;
      const links: AuditLinkRepository = {
        ...store.auditLinks,
        async link(tenantId, ...rest) {
          tried.push(tenantId);
          if (isAway) throw away;
          return store.auditLinks.link(tenantId, ...rest);
        },
      };
      const trail = createAuditTrail(links, { recorder: { isUnavailable: (error) => error === away } });
      await Promise.all([trail.recorder.append('tenant-a', event(0)), trail.recorder.append('tenant-b', event(0))]);
      tried.length = 0;
      isAway = true;
      const outcomes = await Promise.allSettled([trail.recorder.append('tenant-a', event(1)), trail.recorder.append('tenant-b', event(1))]);
      expect(outcomes.map((o) => (o.status === 'rejected' ? o.reason : o.status))).toEqual([away, away]);
      // Tenant b's write was never tried: the store was known to be away.
      expect(tried).toEqual(['tenant-a']);
      isAway = false;
      await trail.close();
    });

    it('a record appended while a turn of its tenant is in flight is stored unlinked and linked by that turn, never on a second head', async () => {
      const paused = deferred();
      const reading = deferred();
      let pause = false;
      const links: AuditLinkRepository = {
        ...store.auditLinks,
        async unlinked(...args) {
          if (pause) {
            pause = false;
            reading.resolve();
            await paused.promise;
          }
          return store.auditLinks.unlinked(...args);
        },
      };
      const trail = createAuditTrail(links);
      await trail.recorder.append('acme', event(0));
      pause = true;
      trail.linker.notify('acme');
      await reading.promise;
      await trail.recorder.append('acme', event(1));
      expect(await unlinkedCount('acme')).toBe(1);
      paused.resolve();
      await trail.flush();
      const chain = await chainOf('acme');
      expect(chain.map((r) => [r.seq, r.payload.n])).toEqual([
        [1, 0],
        [2, 1],
      ]);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 2 });
      await trail.close();
    });

    it('takes bigger batches while a backlog lasts and the base batch again once it is gone', async () => {
      const order: string[] = [];
      // Every record through the linker's turns: none is linked in the write that stores it.
      const trail = createAuditTrail(twoWrites(), {
        recorder: { batchSize: 1000 },
        linker: { batchSize: 4, maxBatchSize: 16, onLinked: (_tenantId, records) => order.push(String(records.length)) },
      });
      await Promise.all(range(0, 40).map((n) => trail.recorder.append('acme', event(n))));
      await trail.flush();
      // 4, 8, 16, 12 (what was left: not a full batch), then 5 new records: the base batch of 4 again.
      await Promise.all(range(40, 45).map((n) => trail.recorder.append('acme', event(n))));
      await trail.flush();
      expect(order).toEqual(['4', '8', '16', '12', '4', '1']);
      expect((await chainOf('acme')).map((r) => r.payload.n)).toEqual(range(0, 45));
      await trail.close();
    });

    it('close refuses further appends and gives the leases back: another holder takes them at once', async () => {
      const clock = manualClock();
      const one = createAuditTrail(store.auditLinks, { recorder: { now: clock.now }, linker: { holder: 'one', leaseMs: 60_000, now: clock.now } });
      await Promise.all([one.recorder.append('tenant-a', event(1)), one.recorder.append('tenant-b', event(1))]);
      await one.flush();
      expect([leaseOf('tenant-a'), leaseOf('tenant-b')]).toEqual([
        { holder: 'one', epoch: 1 },
        { holder: 'one', epoch: 1 },
      ]);
      expect(await leaseIsFree('tenant-a', clock.now())).toBe(false);

      await one.close();
      await expect(one.recorder.append('tenant-a', event(2))).rejects.toBeInstanceOf(AuditRecorderClosedError);
      const two = createAuditTrail(store.auditLinks, { recorder: { now: clock.now }, linker: { holder: 'two', leaseMs: 60_000, now: clock.now } });
      await Promise.all([two.recorder.append('tenant-a', event(2)), two.recorder.append('tenant-b', event(2))]);
      await two.flush();
      expect([leaseOf('tenant-a'), leaseOf('tenant-b')]).toEqual([
        { holder: 'two', epoch: 2 },
        { holder: 'two', epoch: 2 },
      ]);
      for (const tenantId of ['tenant-a', 'tenant-b']) {
        expect((await chainOf(tenantId)).map((r) => r.payload.n)).toEqual([1, 2]);
        await expect(verifyChain(store.audit, tenantId)).resolves.toMatchObject({ valid: true, checked: 2 });
      }
      await two.close();
    });
  });

  describe('createAuditLinker', () => {
    it('settled() resolves once the tenants notified before it are linked', async () => {
      const recorder = createAuditRecorder(store.auditLinks);
      await Promise.all(range(0, 30).map((n) => recorder.append('acme', event(n))));
      const linker = createAuditLinker(store.auditLinks, { batchSize: 10 });
      await linker.settled();
      const linkedNow = () => (store.raw.prepare("SELECT count(*) AS n FROM audit_records WHERE tenant_id = 'acme'").get() as { n: number }).n;
      expect(linkedNow()).toBe(0);
      linker.notify('acme');
      expect(linkedNow()).toBe(0);
      await linker.settled();
      expect(linkedNow()).toBe(30);
      expect(await unlinkedCount('acme')).toBe(0);
      await linker.stop();
    });

    it("records stored by a process that does not hold the tenant are linked by the holder's sweep, untold", async () => {
      const one = createAuditTrail(store.auditLinks, { linker: { holder: 'one' } });
      const two = createAuditTrail(store.auditLinks, { linker: { holder: 'two' } });
      await one.recorder.append('acme', event(0));
      await one.flush();
      await Promise.all([1, 2, 3].map((n) => two.recorder.append('acme', event(n))));
      await two.flush();
      expect(await unlinkedCount('acme')).toBe(3);

      await one.linker.sweep();
      await one.linker.settled();
      expect((await chainOf('acme')).map((r) => r.payload.n)).toEqual([0, 1, 2, 3]);
      expect(await unlinkedCount('acme')).toBe(0);
      expect(leaseOf('acme')).toEqual({ holder: 'one', epoch: 1 });
      await Promise.all([one.close(), two.close()]);
    });

    it('a sweep finds records no linker was told of once they have waited sweepAfterMs', async () => {
      const clock = manualClock();
      // Stored by a process that stopped before its linker ran.
      const recorder = createAuditRecorder(store.auditLinks, { now: clock.now });
      await Promise.all([recorder.append('tenant-a', event(1)), recorder.append('tenant-b', event(2))]);
      const linker = createAuditLinker(store.auditLinks, { now: clock.now, sweepAfterMs: 1000 });
      await linker.sweep();
      await linker.settled();
      expect([await unlinkedCount('tenant-a'), await unlinkedCount('tenant-b')]).toEqual([1, 1]);

      clock.advance(1001);
      await linker.sweep();
      await linker.settled();
      expect([await unlinkedCount('tenant-a'), await unlinkedCount('tenant-b')]).toEqual([0, 0]);
      expect((await chainOf('tenant-a')).map((r) => r.payload)).toEqual([{ n: 1 }]);
      expect((await chainOf('tenant-b')).map((r) => r.payload)).toEqual([{ n: 2 }]);
      await linker.stop();
    });

    it('a holder that stops renewing is taken over once its lease has run out, at the next epoch', async () => {
      const clock = manualClock();
      const recorder = createAuditRecorder(store.auditLinks, { now: clock.now });
      const told: string[] = [];
      const one = createAuditLinker(store.auditLinks, { holder: 'one', leaseMs: 1000, now: clock.now });
      const two = createAuditLinker(store.auditLinks, { holder: 'two', leaseMs: 1000, now: clock.now, onHeldElsewhere: (t) => told.push(t) });
      await recorder.append('acme', event(1));
      one.notify('acme');
      await one.settled();
      expect(leaseOf('acme')).toEqual({ holder: 'one', epoch: 1 });

      await recorder.append('acme', event(2));
      two.notify('acme');
      await two.settled();
      clock.advance(999);
      two.notify('acme');
      await two.settled();
      expect(told).toEqual(['acme', 'acme']);
      expect(await unlinkedCount('acme')).toBe(1);

      // Past the lease, and past the half lease for which the last answer held.
      clock.advance(500);
      two.notify('acme');
      await two.settled();
      expect(told).toHaveLength(2);
      expect(leaseOf('acme')).toEqual({ holder: 'two', epoch: 2 });
      const chain = await chainOf('acme');
      expect(chain.map((r) => [r.seq, r.payload.n])).toEqual([
        [1, 1],
        [2, 2],
      ]);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 2 });
      await Promise.all([one.stop(), two.stop()]);
    });

    /**
     * Linker `one` holds acme (leaseMs 1000) and has linked record 1; told of records 2 and 3,
     * stored in its process, it has read them to link them and stopped there (as under SIGSTOP)
     * until `resume`.
     */
    async function pausedHolder(clock: ReturnType<typeof manualClock>) {
      const recorder = createAuditRecorder(store.auditLinks, { now: clock.now });
      let pauseNext = false;
      const paused = deferred();
      const resume = deferred();
      const pausing: AuditLinkRepository = {
        ...store.auditLinks,
        async unlinked(tenantId, limit) {
          const page = await store.auditLinks.unlinked(tenantId, limit);
          if (pauseNext) {
            pauseNext = false;
            paused.resolve();
            await resume.promise;
          }
          return page;
        },
      };
      const fenced: string[] = [];
      const told: string[] = [];
      const linkedByOne: number[] = [];
      const one = createAuditLinker(pausing, {
        holder: 'one',
        leaseMs: 1000,
        now: clock.now,
        onFenced: (t) => fenced.push(t),
        onHeldElsewhere: (t) => told.push(t),
        onLinked: (_t, records) => linkedByOne.push(...records.map((r) => r.seq)),
      });
      await recorder.append('acme', event(1));
      one.notify('acme');
      await one.settled();
      await Promise.all([2, 3].map((n) => recorder.append('acme', event(n))));
      pauseNext = true;
      one.notify('acme');
      await paused.promise;
      return { recorder, one, fenced, told, linkedByOne, resume: resume.resolve };
    }

    it('a stale holder, paused in the middle of a link past its lease, writes nothing once another holds the lease, though the head has not moved', async () => {
      const clock = manualClock();
      const { one, fenced, told, linkedByOne, resume } = await pausedHolder(clock);
      clock.advance(1001);
      // Another process takes the lease over; it has not linked anything yet.
      const taken = await store.auditLinks.takeLease('acme', 'two', new Date(clock.now().getTime() + 1000).toISOString(), clock.now().toISOString());
      expect(taken).toMatchObject({ holder: 'two', epoch: 2, head: { seq: 1 } });
      const chainBefore = await chainOf('acme');
      const unlinkedBefore = await store.auditLinks.unlinked('acme', 100);
      expect(unlinkedBefore.map((r) => r.payload.n)).toEqual([2, 3]);

      resume();
      await one.settled();
      expect(fenced).toEqual(['acme']);
      // The records were stored here: the holder is told of them.
      expect(told).toEqual(['acme']);
      expect(linkedByOne).toEqual([1]);
      expect(await chainOf('acme')).toEqual(chainBefore);
      expect(await store.auditLinks.unlinked('acme', 100)).toEqual(unlinkedBefore);
      expect(leaseOf('acme')).toEqual({ holder: 'two', epoch: 2 });

      const two = createAuditLinker(store.auditLinks, { holder: 'two', leaseMs: 1000, now: clock.now });
      two.notify('acme', { heard: true });
      await two.settled();
      expect((await chainOf('acme')).map((r) => [r.seq, r.payload.n])).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
      ]);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 3 });
      await Promise.all([one.stop(), two.stop()]);
    });

    it('a stale holder, paused in the middle of a link while another took over and linked its records, writes nothing and then tells the holder', async () => {
      const clock = manualClock();
      const { recorder, one, fenced, told, linkedByOne, resume } = await pausedHolder(clock);
      clock.advance(1001);
      const two = createAuditLinker(store.auditLinks, { holder: 'two', leaseMs: 1000, now: clock.now });
      two.notify('acme');
      await two.settled();
      await recorder.append('acme', event(4));
      const chainBefore = await chainOf('acme');
      const unlinkedBefore = await store.auditLinks.unlinked('acme', 100);
      expect(chainBefore.map((r) => r.payload.n)).toEqual([1, 2, 3]);
      expect(unlinkedBefore.map((r) => r.payload.n)).toEqual([4]);

      resume();
      await one.settled();
      expect(fenced).toEqual(['acme']);
      expect(linkedByOne).toEqual([1]);
      expect(await chainOf('acme')).toEqual(chainBefore);
      expect(await store.auditLinks.unlinked('acme', 100)).toEqual(unlinkedBefore);
      expect(leaseOf('acme')).toEqual({ holder: 'two', epoch: 2 });

      expect(told).toEqual(['acme']);
      // Records it stores afterwards are announced to the holder, not linked.
      one.notify('acme');
      await one.settled();
      expect(told).toEqual(['acme', 'acme']);
      expect(fenced).toHaveLength(1);
      expect(await chainOf('acme')).toEqual(chainBefore);

      two.notify('acme', { heard: true });
      await two.settled();
      expect((await chainOf('acme')).map((r) => r.payload.n)).toEqual([1, 2, 3, 4]);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 4 });
      await Promise.all([one.stop(), two.stop()]);
    });

    it('announces records stored here while another process holds the tenant, never notices it heard, and asks the store at most once per half lease', async () => {
      const clock = manualClock();
      const recorder = createAuditRecorder(store.auditLinks, { now: clock.now });
      const one = createAuditLinker(store.auditLinks, { holder: 'one', leaseMs: 1000, now: clock.now });
      await recorder.append('acme', event(1));
      one.notify('acme');
      await one.settled();

      let asked = 0;
      const counting: AuditLinkRepository = {
        ...store.auditLinks,
        takeLease(...args) {
          asked += 1;
          return store.auditLinks.takeLease(...args);
        },
      };
      const told: string[] = [];
      const two = createAuditLinker(counting, { holder: 'two', leaseMs: 1000, now: clock.now, onHeldElsewhere: (t) => told.push(t) });
      await recorder.append('acme', event(2));
      two.notify('acme', { heard: true });
      await two.settled();
      expect([told, asked]).toEqual([[], 1]);
      two.notify('acme');
      await two.settled();
      two.notify('acme', { heard: true });
      await two.settled();
      expect([told, asked]).toEqual([['acme'], 1]);

      clock.advance(500);
      two.notify('acme', { heard: true });
      await two.settled();
      expect([told, asked]).toEqual([['acme'], 2]);
      expect(await unlinkedCount('acme')).toBe(1);
      await Promise.all([one.stop(), two.stop()]);
    });

    it('lets a tenant idle for idleMs go at the sweep: its lease is free for another holder', async () => {
      const clock = manualClock();
      const recorder = createAuditRecorder(store.auditLinks, { now: clock.now });
      const linker = createAuditLinker(store.auditLinks, { leaseMs: 60_000, idleMs: 1000, now: clock.now });
      await recorder.append('acme', event(1));
      linker.notify('acme');
      await linker.settled();
      clock.advance(1000);
      await linker.sweep();
      await linker.settled();
      expect(await leaseIsFree('acme', clock.now())).toBe(false);
      clock.advance(1);
      await linker.sweep();
      expect(await leaseIsFree('acme', clock.now())).toBe(true);
      await linker.stop();
    });

    it('passes onLinked each record’s lag from when it was stored, never below zero', async () => {
      const storedAt = Date.parse('2026-01-01T00:00:00.000Z');
      const recorder = createAuditRecorder(store.auditLinks, { now: () => new Date(storedAt) });
      await Promise.all([recorder.append('tenant-a', event(1)), recorder.append('tenant-a', event(2)), recorder.append('tenant-b', event(3))]);
      const lags: Record<string, number[]> = {};
      const onLinked = (tenantId: string, _records: readonly AuditRecord[], lagMs: readonly number[]) => {
        (lags[tenantId] ??= []).push(...lagMs);
      };
      const later = createAuditLinker(store.auditLinks, { now: () => new Date(storedAt + 250), onLinked });
      later.notify('tenant-a');
      await later.settled();
      // A linker whose clock runs behind that of the process that stored the record.
      const behind = createAuditLinker(store.auditLinks, { now: () => new Date(storedAt - 40), onLinked });
      behind.notify('tenant-b');
      await behind.settled();
      expect(lags).toEqual({ 'tenant-a': [250, 250], 'tenant-b': [0] });
      await Promise.all([later.stop(), behind.stop()]);
    });

    it('after a link whose outcome is unknown, reads its lease and head afresh and carries on', async () => {
      let loseAnswer = true;
      // The link is written but its answer lost (a connection reset after the commit).
      const flaky: AuditLinkRepository = {
        ...store.auditLinks,
        async link(tenantId, lease, records) {
          const written = await store.auditLinks.link(tenantId, lease, records);
          if (loseAnswer) {
            loseAnswer = false;
            throw new Error('connection reset');
          }
          return written;
        },
      };
      const errors: [string, string | null][] = [];
      const fenced: string[] = [];
      const linker = createAuditLinker(flaky, { onError: (error, t) => errors.push([(error as Error).message, t]), onFenced: (t) => fenced.push(t) });
      const recorder = createAuditRecorder(store.auditLinks, { onStored: (tenantIds) => tenantIds.forEach((t) => linker.notify(t)) });
      await Promise.all([1, 2, 3].map((n) => recorder.append('acme', event(n))));
      await linker.settled();
      expect(errors).toEqual([['connection reset', 'acme']]);
      await recorder.append('acme', event(4));
      await linker.settled();
      expect(fenced).toEqual([]);
      expect((await chainOf('acme')).map((r) => [r.seq, r.payload.n])).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
      ]);
      await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 4 });
      await linker.stop();
    });

    it('refuses nonsensical options', () => {
      for (const options of [{ leaseMs: 0 }, { batchSize: 0 }, { concurrency: 0 }, { idleMs: 1.5 }, { sweepAfterMs: -1 }]) {
        expect(() => createAuditLinker(store.auditLinks, options)).toThrow(RangeError);
      }
      const linker = createAuditLinker(store.auditLinks);
      expect(() => linker.start(0)).toThrow(RangeError);
    });
  });
});
