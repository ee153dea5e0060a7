import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, computeAuditContentHash, createAuditTrail, type UnlinkedAuditEntry } from '../../../audit/index.js';
import { openSqliteStore, type SqliteStore } from '../../index.js';

function entry(tenantId: string, id: string, n: number): UnlinkedAuditEntry {
  const content = {
    eventType: 'POLICY_EVALUATED',
    policyModule: null,
    policyFunction: null,
    actorId: 'svc',
    occurredAt: '2026-01-01T00:00:00.000Z',
    payload: { n },
  };
  return { tenantId, record: { ...content, id, contentHash: computeAuditContentHash(id, content), storedAt: '2026-01-01T00:00:00.000Z' } };
}

describe('SQLite unlinked audit records', () => {
  let store: SqliteStore;

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
  });
  afterEach(async () => {
    await store.close();
  });

  const payloads = async (tenantId: string) => (await store.auditLinks.unlinked(tenantId, 100)).map((r) => r.payload.n);

  it('stores a record once per tenant and id, keeping the first', async () => {
    await store.auditLinks.storeUnlinked([entry('acme', 'r1', 1), entry('acme', 'r1', 2), entry('other', 'r1', 3)]);
    await store.auditLinks.storeUnlinked([entry('acme', 'r1', 4), entry('acme', 'r2', 5)]);
    expect(await payloads('acme')).toEqual([1, 5]);
    expect(await payloads('other')).toEqual([3]);
  });

  it('refuses an insert holding a record it cannot store, whole, rather than skip that record and resolve', async () => {
    const broken = entry('acme', 'r2', 2);
    (broken.record as { actorId: unknown }).actorId = null;
    await expect(store.auditLinks.storeUnlinked([entry('acme', 'r1', 1), broken])).rejects.toThrow(/NOT NULL/);
    expect(await payloads('acme')).toEqual([]);
  });

  // Integer-like names come first in a JS object, so JSON.stringify of the parsed payload would put "9" before "10".
  const payload = { b: 1, a: [true, null], '10': 'ten', '9': 'nine', nested: { z: 0.5, y: 'é' } };
  const canonical = '{"10":"ten","9":"nine","a":[true,null],"b":1,"nested":{"y":"é","z":0.5}}';

  it('stores the payload as the canonical text its append made, when the record is linked at once', async () => {
    expect(canonicalJson(payload)).toBe(canonical);
    const trail = createAuditTrail(store.auditLinks);
    try {
      await trail.recorder.append('acme', { eventType: 'POLICY_EVALUATED', actorId: 'svc', payload });
      await trail.flush();
    } finally {
      await trail.close();
    }
    expect(store.raw.prepare('SELECT payload FROM audit_records').pluck().all()).toEqual([canonical]);
    // Linked in the one write that stored it: nothing was left waiting.
    expect(await store.auditLinks.unlinkedSummary('acme')).toEqual({ count: 0, oldestStoredAt: null });
    const [record] = await store.audit.list('acme', { limit: 1 });
    expect(record!.payload).toEqual(payload);
  });

  it('stores an unlinked record\'s payload as the text it carries, else as JSON of the payload', async () => {
    const carried = entry('acme', 'r1', 1);
    carried.record.payload = payload;
    carried.record.payloadText = canonical;
    await store.auditLinks.storeUnlinked([carried, entry('acme', 'r2', 2)]);
    expect(store.raw.prepare('SELECT payload FROM audit_unlinked ORDER BY id').pluck().all()).toEqual([canonical, '{"n":2}']);
    expect((await store.auditLinks.unlinked('acme', 10)).map((r) => r.payload)).toEqual([payload, { n: 2 }]);
  });
});
