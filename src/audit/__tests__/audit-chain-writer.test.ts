import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import type { AuditChainRepository, AuditRecord } from '../audit-chain-store.js';
import {
  AuditChainContentionError,
  AuditEventError,
  AuditWriterClosedError,
  createAuditChainWriter,
  GENESIS_PREVIOUS_HASH,
  verifyChain,
  type AuditEvent,
} from '../index.js';
import { computeAuditHash } from '../audit-hash.js';

const event = (n: number, extra: Partial<AuditEvent> = {}): AuditEvent => ({
  eventType: 'POLICY_EVALUATED',
  policyModule: 'com.acme.loans',
  policyFunction: 'eligible',
  actorId: 'svc',
  payload: { n },
  ...extra,
});

async function stored(store: SqliteStore, tenant: string): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for await (const record of store.audit.scan(tenant, 1, 100)) out.push(record);
  return out;
}

describe('createAuditChainWriter', () => {
  let store: SqliteStore;

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
  });
  afterEach(async () => {
    await store.close();
  });

  it('appends records that form a verifiable chain from the genesis hash', async () => {
    const writer = createAuditChainWriter(store.audit, { now: () => new Date('2026-01-01T00:00:00.000Z') });
    const records = await Promise.all([1, 2, 3].map((n) => writer.append('acme', event(n))));
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(records[0]!.previousHash).toBe(GENESIS_PREVIOUS_HASH);
    expect(records[1]!.previousHash).toBe(records[0]!.hash);
    for (const record of records) expect(record.hash).toBe(computeAuditHash(record));
    expect(records[2]).toMatchObject({ occurredAt: '2026-01-01T00:00:00.000Z', payload: { n: 3 }, actorId: 'svc' });
    expect(await stored(store, 'acme')).toEqual(records);
    await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 3 });
    await writer.close();
  });

  it('writes in batches of at most batchSize, in call order', async () => {
    const writer = createAuditChainWriter(store.audit, { batchSize: 100 });
    const records = await Promise.all(Array.from({ length: 250 }, (_, n) => writer.append('acme', event(n))));
    expect(records.map((r) => r.payload.n)).toEqual(Array.from({ length: 250 }, (_, n) => n));
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 250 }, (_, n) => n + 1));
    expect(writer.stats()).toEqual({ appended: 250, batches: 3, conflicts: 0 });
    await writer.close();
  });

  it('writes a lone append after the flush interval without an explicit flush', async () => {
    const writer = createAuditChainWriter(store.audit, { batchSize: 100, flushIntervalMs: 20 });
    const record = await writer.append('acme', event(1));
    expect(record.seq).toBe(1);
    expect(await store.audit.head('acme')).toEqual({ seq: 1, hash: record.hash });
    await writer.close();
  });

  it('by default, appends made in the same turn of the event loop share one insert', async () => {
    const writer = createAuditChainWriter(store.audit);
    const first = await Promise.all([1, 2, 3].map((n) => writer.append('acme', event(n))));
    expect(writer.stats()).toEqual({ appended: 3, batches: 1, conflicts: 0 });
    const later = await writer.append('acme', event(4));
    expect(later.seq).toBe(4);
    expect(later.previousHash).toBe(first[2]!.hash);
    expect(writer.stats()).toEqual({ appended: 4, batches: 2, conflicts: 0 });
    await writer.close();
  });

  it('keeps one chain per tenant', async () => {
    const writer = createAuditChainWriter(store.audit);
    const [a1, b1, a2] = await Promise.all([
      writer.append('tenant-a', event(1)),
      writer.append('tenant-b', event(1)),
      writer.append('tenant-a', event(2)),
    ]);
    expect([a1!.seq, b1!.seq, a2!.seq]).toEqual([1, 1, 2]);
    expect(b1!.previousHash).toBe(GENESIS_PREVIOUS_HASH);
    expect(a2!.previousHash).toBe(a1!.hash);
    await writer.close();
  });

  it('after a partial insert, rebuilds the rest of the batch on the other writer\'s records', async () => {
    const rival = createAuditChainWriter(store.audit);
    let injected = false;
    // Another writer slips in between our first two records and the rest.
    const racing: AuditChainRepository = {
      ...store.audit,
      scan: store.audit.scan.bind(store.audit),
      async insertBatch(tenantId, records) {
        if (injected || records.length < 3) return store.audit.insertBatch(tenantId, records);
        injected = true;
        const first = await store.audit.insertBatch(tenantId, records.slice(0, 2));
        await rival.append(tenantId, event(99, { actorId: 'rival' }));
        const rest = await store.audit.insertBatch(tenantId, records.slice(2));
        return first + rest;
      },
    };
    const writer = createAuditChainWriter(racing, { batchSize: 5 });
    const mine = await Promise.all([1, 2, 3, 4, 5].map((n) => writer.append('acme', event(n))));
    expect(mine.map((r) => r.seq)).toEqual([1, 2, 4, 5, 6]);
    expect(writer.stats()).toMatchObject({ appended: 5, conflicts: 1 });
    const chain = await stored(store, 'acme');
    expect(chain.map((r) => r.actorId)).toEqual(['svc', 'svc', 'rival', 'svc', 'svc', 'svc']);
    expect(chain[3]).toEqual(mine[2]);
    expect(mine[2]!.previousHash).toBe(chain[2]!.hash);
    await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 6 });
    await Promise.all([writer.close(), rival.close()]);
  });

  it('lets two writers on one tenant race without losing or forking anything', async () => {
    const w1 = createAuditChainWriter(store.audit, { batchSize: 7 });
    const w2 = createAuditChainWriter(store.audit, { batchSize: 5 });
    const all = await Promise.all(
      Array.from({ length: 60 }, (_, n) => (n % 2 === 0 ? w1 : w2).append('acme', event(n))),
    );
    expect(all.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, n) => n + 1));
    await expect(verifyChain(store.audit, 'acme')).resolves.toMatchObject({ valid: true, checked: 60 });
    expect(w1.stats().conflicts + w2.stats().conflicts).toBeGreaterThan(0);
    await Promise.all([w1.close(), w2.close()]);
  });

  it('stores a record with the id it is given, and refuses an id that is not a short string', async () => {
    const writer = createAuditChainWriter(store.audit);
    const [given, fresh] = await Promise.all([writer.append('acme', event(1), { id: 'fixed-id-1' }), writer.append('acme', event(2))]);
    expect(given.id).toBe('fixed-id-1');
    expect(fresh.id).not.toBe('fixed-id-1');
    expect(given.hash).toBe(computeAuditHash(given));
    expect(await store.audit.findById('acme', 'fixed-id-1')).toEqual(given);
    await expect(writer.append('acme', event(3), { id: '' })).rejects.toBeInstanceOf(AuditEventError);
    await expect(writer.append('acme', event(3), { id: 'x'.repeat(129) })).rejects.toBeInstanceOf(AuditEventError);
    expect(await stored(store, 'acme')).toHaveLength(2);
    await writer.close();
  });

  it('refuses a bad event or tenant at once and stores nothing for it', async () => {
    const writer = createAuditChainWriter(store.audit);
    await expect(writer.append('acme', { ...event(1), payload: { x: Number.NaN } })).rejects.toBeInstanceOf(AuditEventError);
    await expect(writer.append('bad tenant', event(1))).rejects.toBeInstanceOf(AuditEventError);
    const ok = await writer.append('acme', event(2));
    expect(ok.seq).toBe(1);
    await writer.close();
  });

  /** The audit repository of `store`, whose first insert throws `error`. */
  function failingOnce(error: Error): AuditChainRepository {
    let fail = true;
    return {
      ...store.audit,
      scan: store.audit.scan.bind(store.audit),
      async insertBatch(tenantId, records) {
        if (fail) {
          fail = false;
          throw error;
        }
        return store.audit.insertBatch(tenantId, records);
      },
    };
  }

  it('when the store is unavailable, fails the appends of the refused batch and those queued behind it, then carries on', async () => {
    const away = new Error('store away');
    const writer = createAuditChainWriter(failingOnce(away), { batchSize: 2, isUnavailable: (error) => error === away });
    const results = await Promise.allSettled([1, 2, 3].map((n) => writer.append('acme', event(n))));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const result of results) expect((result as PromiseRejectedResult).reason).toBe(away);
    expect((await writer.append('acme', event(4))).seq).toBe(1);
    expect((await stored(store, 'acme')).map((record) => record.payload)).toEqual([{ n: 4 }]);
    await writer.close();
  });

  it('after any other error, fails only the refused batch and writes the appends queued behind it', async () => {
    const refused = new Error('disk full');
    const writer = createAuditChainWriter(failingOnce(refused), { batchSize: 2, isUnavailable: () => false });
    const results = await Promise.allSettled([1, 2, 3].map((n) => writer.append('acme', event(n))));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toBe(refused);
    expect((results[2] as PromiseFulfilledResult<AuditRecord>).value.seq).toBe(1);
    expect((await stored(store, 'acme')).map((record) => record.payload)).toEqual([{ n: 3 }]);
    await writer.close();
  });

  it('gives up with AuditChainContentionError after maxConflicts lost races', async () => {
    const alwaysTaken: AuditChainRepository = { ...store.audit, scan: store.audit.scan.bind(store.audit), insertBatch: async () => 0 };
    const writer = createAuditChainWriter(alwaysTaken, { maxConflicts: 3, conflictBackoffMs: 0 });
    await expect(writer.append('acme', event(1))).rejects.toBeInstanceOf(AuditChainContentionError);
    expect(writer.stats().conflicts).toBe(4);
    await writer.close();
  });

  it('flush waits for queued appends; close flushes and then refuses appends', async () => {
    const writer = createAuditChainWriter(store.audit, { batchSize: 1000, flushIntervalMs: 60_000 });
    const pending = [1, 2, 3].map((n) => writer.append('acme', event(n)));
    await writer.flush();
    expect(await store.audit.head('acme')).toMatchObject({ seq: 3 });
    const last = writer.append('acme', event(4));
    await writer.close();
    await expect(last).resolves.toMatchObject({ seq: 4 });
    await expect(Promise.all(pending)).resolves.toHaveLength(3);
    await expect(writer.append('acme', event(5))).rejects.toBeInstanceOf(AuditWriterClosedError);
  });

  it('refuses nonsensical options', () => {
    expect(() => createAuditChainWriter(store.audit, { batchSize: 0 })).toThrow(RangeError);
    expect(() => createAuditChainWriter(store.audit, { flushIntervalMs: -1 })).toThrow(RangeError);
  });
});
