import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeAuditContentHash, type UnlinkedAuditEntry } from '../../../audit/index.js';
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
});
