import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import {
  AuditEventError,
  AuditRecorderClosedError,
  computeAuditContentHash,
  createAuditLinker,
  createAuditRecorder,
  type AuditEvent,
  type AuditLinkRepository,
  type AuditReceipt,
  type UnlinkedAuditEntry,
} from '../index.js';

const event = (n: number, extra: Partial<AuditEvent> = {}): AuditEvent => ({
  eventType: 'POLICY_EVALUATED',
  policyModule: 'com.acme.loans',
  policyFunction: 'eligible',
  actorId: 'svc',
  payload: { n },
  ...extra,
});

describe('createAuditRecorder', () => {
  let store: SqliteStore;
  /** Each insert the recorder made: the tenant and payload `n` of its records, in order. */
  let inserts: { tenantId: string; n: unknown }[][];
  /** The store's repository, recording each insert in `inserts`. */
  let repository: Pick<AuditLinkRepository, 'storeUnlinked'>;

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    inserts = [];
    repository = {
      async storeUnlinked(entries: readonly UnlinkedAuditEntry[]) {
        inserts.push(entries.map((e) => ({ tenantId: e.tenantId, n: e.record.payload.n })));
        return store.auditLinks.storeUnlinked(entries);
      },
    };
  });
  afterEach(async () => {
    await store.close();
  });

  const unlinkedPayloads = async (tenantId: string) => (await store.auditLinks.unlinked(tenantId, 1000)).map((r) => r.payload);

  /** The repository of `store`, whose first insert throws `error`. */
  function failingOnce(error: Error): Pick<AuditLinkRepository, 'storeUnlinked'> {
    let fail = true;
    return {
      async storeUnlinked(entries) {
        if (fail) {
          fail = false;
          throw error;
        }
        return store.auditLinks.storeUnlinked(entries);
      },
    };
  }

  it('resolves with a receipt: the stored record id and the hash of its content, which its link leaves unchanged', async () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    const recorder = createAuditRecorder(repository, { now: () => at });
    const payload = { n: 1, nested: { list: [1, 'two', null], text: 'é' } };
    const pending = recorder.append('acme', event(1, { payload }));
    // A change the caller makes afterwards is not what was stored, nor what was hashed.
    payload.nested.text = 'changed';
    const receipt = await pending;
    const other = await recorder.append('acme', event(2));
    expect(receipt.id).not.toBe(other.id);
    // Named in time order (version 7), so the chain's index of ids grows at its end.
    expect([receipt.id[14], other.id[14]]).toEqual(['7', '7']);

    const stored = await store.auditLinks.findUnlinked('acme', receipt.id);
    expect(stored).toEqual({
      id: receipt.id,
      eventType: 'POLICY_EVALUATED',
      policyModule: 'com.acme.loans',
      policyFunction: 'eligible',
      actorId: 'svc',
      occurredAt: '2026-01-01T00:00:00.000Z',
      payload: { n: 1, nested: { list: [1, 'two', null], text: 'é' } },
      contentHash: receipt.contentHash,
      storedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(receipt.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(computeAuditContentHash(stored!.id, stored!)).toBe(receipt.contentHash);

    const linker = createAuditLinker(store.auditLinks);
    linker.notify('acme');
    await linker.settled();
    const linked = await store.audit.findById('acme', receipt.id);
    expect(linked).toMatchObject({ seq: 1, payload: stored!.payload, occurredAt: stored!.occurredAt });
    expect(computeAuditContentHash(linked!.id, linked!)).toBe(receipt.contentHash);
    await linker.stop();
    await recorder.close();
  });

  it('stores in inserts of at most batchSize records, in call order', async () => {
    const recorder = createAuditRecorder(repository, { batchSize: 100 });
    const receipts = await Promise.all(Array.from({ length: 250 }, (_, n) => recorder.append('acme', event(n))));
    expect(inserts.map((insert) => insert.length)).toEqual([100, 100, 50]);
    expect(inserts.flat().map((r) => r.n)).toEqual(Array.from({ length: 250 }, (_, n) => n));
    const unlinked = await store.auditLinks.unlinked('acme', 1000);
    expect(unlinked.map((r) => r.payload.n)).toEqual(Array.from({ length: 250 }, (_, n) => n));
    expect(unlinked.map((r) => r.id)).toEqual(receipts.map((r) => r.id));
    expect(recorder.stats()).toEqual({ stored: 250, batches: 3 });
    await recorder.close();
  });

  it('stores a lone append without an explicit flush, after the flush interval or by default at the next turn', async () => {
    const waiting = createAuditRecorder(repository, { batchSize: 100, flushIntervalMs: 20 });
    const first = await waiting.append('acme', event(1));
    const prompt = createAuditRecorder(repository, { batchSize: 100 });
    const second = await prompt.append('acme', event(2));
    expect(await store.auditLinks.findUnlinked('acme', first.id)).toMatchObject({ payload: { n: 1 } });
    expect(await store.auditLinks.findUnlinked('acme', second.id)).toMatchObject({ payload: { n: 2 } });
    expect(inserts).toHaveLength(2);
    await Promise.all([waiting.close(), prompt.close()]);
  });

  it('by default, appends made in the same turn of the event loop share one insert, whatever their tenant', async () => {
    const told: string[][] = [];
    const recorder = createAuditRecorder(repository, { onStored: (tenantIds) => told.push([...tenantIds]) });
    await Promise.all([recorder.append('tenant-a', event(1)), recorder.append('tenant-b', event(2)), recorder.append('tenant-a', event(3))]);
    expect(inserts).toEqual([
      [
        { tenantId: 'tenant-a', n: 1 },
        { tenantId: 'tenant-b', n: 2 },
        { tenantId: 'tenant-a', n: 3 },
      ],
    ]);
    expect(told).toEqual([['tenant-a', 'tenant-b']]);
    await recorder.append('tenant-b', event(4));
    expect(inserts).toHaveLength(2);
    expect(told).toEqual([['tenant-a', 'tenant-b'], ['tenant-b']]);
    expect(await unlinkedPayloads('tenant-a')).toEqual([{ n: 1 }, { n: 3 }]);
    expect(await unlinkedPayloads('tenant-b')).toEqual([{ n: 2 }, { n: 4 }]);
    expect(recorder.stats()).toEqual({ stored: 4, batches: 2 });
    await recorder.close();
  });

  it('stores a record with the id it is given, and refuses an id that is not a short string', async () => {
    const recorder = createAuditRecorder(repository);
    const [given, fresh] = await Promise.all([recorder.append('acme', event(1), { id: 'fixed-id-1' }), recorder.append('acme', event(2))]);
    expect(given.id).toBe('fixed-id-1');
    expect(fresh.id).not.toBe('fixed-id-1');
    const stored = await store.auditLinks.findUnlinked('acme', 'fixed-id-1');
    expect(stored).toMatchObject({ payload: { n: 1 }, contentHash: given.contentHash });
    expect(computeAuditContentHash('fixed-id-1', stored!)).toBe(given.contentHash);
    for (const id of ['', 'x'.repeat(129), 42 as unknown as string]) {
      await expect(recorder.append('acme', event(3), { id })).rejects.toBeInstanceOf(AuditEventError);
    }
    await recorder.flush();
    expect(await unlinkedPayloads('acme')).toEqual([{ n: 1 }, { n: 2 }]);
    await recorder.close();
  });

  it('refuses a bad event or tenant at once and stores nothing for it', async () => {
    const recorder = createAuditRecorder(repository);
    const refused = [
      recorder.append('acme', { ...event(1), payload: { x: Number.NaN } }),
      recorder.append('acme', { ...event(1), payload: { text: 'lone \ud800' } }),
      recorder.append('acme', { ...event(1), eventType: '' }),
      recorder.append('acme', { ...event(1), occurredAt: 'yesterday' }),
      recorder.append('bad tenant', event(1)),
      recorder.append('', event(1)),
    ];
    for (const append of refused) await expect(append).rejects.toBeInstanceOf(AuditEventError);
    await recorder.flush();
    expect(inserts).toEqual([]);
    expect(recorder.stats()).toEqual({ stored: 0, batches: 0 });
    await recorder.append('acme', event(2));
    expect(await unlinkedPayloads('acme')).toEqual([{ n: 2 }]);
    await recorder.close();
  });

  it('when the store is unavailable, fails the appends of the refused insert and those queued behind it, then carries on', async () => {
    const away = new Error('store away');
    const recorder = createAuditRecorder(failingOnce(away), { batchSize: 2, isUnavailable: (error) => error === away });
    const results = await Promise.allSettled([1, 2, 3].map((n) => recorder.append('acme', event(n))));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const result of results) expect((result as PromiseRejectedResult).reason).toBe(away);
    await recorder.append('acme', event(4));
    expect(await unlinkedPayloads('acme')).toEqual([{ n: 4 }]);
    await recorder.close();
  });

  it('after any other error, fails only the refused insert and stores the appends queued behind it', async () => {
    const refused = new Error('disk full');
    const told: string[][] = [];
    const recorder = createAuditRecorder(failingOnce(refused), {
      batchSize: 2,
      isUnavailable: () => false,
      onStored: (tenantIds) => told.push([...tenantIds]),
    });
    const results = await Promise.allSettled([1, 2, 3].map((n) => recorder.append('acme', event(n))));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toBe(refused);
    expect((results[1] as PromiseRejectedResult).reason).toBe(refused);
    const receipt = (results[2] as PromiseFulfilledResult<AuditReceipt>).value;
    expect(await store.auditLinks.findUnlinked('acme', receipt.id)).toMatchObject({ payload: { n: 3 } });
    expect(await unlinkedPayloads('acme')).toEqual([{ n: 3 }]);
    // Only a stored insert is announced to the linker.
    expect(told).toEqual([['acme']]);
    await recorder.close();
  });

  it('flush waits for queued appends; close flushes and then refuses appends', async () => {
    const recorder = createAuditRecorder(repository, { batchSize: 1000, flushIntervalMs: 60_000 });
    const pending = [1, 2, 3].map((n) => recorder.append('acme', event(n)));
    await recorder.flush();
    expect(await unlinkedPayloads('acme')).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const last = recorder.append('acme', event(4));
    await recorder.close();
    await expect(last).resolves.toMatchObject({ id: expect.any(String) });
    await expect(Promise.all(pending)).resolves.toHaveLength(3);
    expect(await unlinkedPayloads('acme')).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    await expect(recorder.append('acme', event(5))).rejects.toBeInstanceOf(AuditRecorderClosedError);
    expect(recorder.stats()).toEqual({ stored: 4, batches: 2 });
  });

  it('refuses nonsensical options', () => {
    expect(() => createAuditRecorder(repository, { batchSize: 0 })).toThrow(RangeError);
    expect(() => createAuditRecorder(repository, { batchSize: 1.5 })).toThrow(RangeError);
    expect(() => createAuditRecorder(repository, { flushIntervalMs: -1 })).toThrow(RangeError);
    expect(() => createAuditRecorder(repository, { flushIntervalMs: Number.NaN })).toThrow(RangeError);
  });
});
