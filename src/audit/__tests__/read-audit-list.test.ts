import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRecords } from '../../../test/support/audit-records.js';
import { linkChain } from '../../../test/support/link-chain.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import type { AuditQuery, AuditRecord } from '../audit-chain-store.js';
import { AUDIT_LIST_SLICE, readAuditList } from '../index.js';

describe('readAuditList', () => {
  let store: SqliteStore;
  const count = AUDIT_LIST_SLICE * 3 + 17;
  const slices: number[] = [];

  beforeAll(async () => {
    store = await openSqliteStore(':memory:');
    const types = ['POLICY_EVALUATED', 'POLICY_DEPLOYED'];
    await linkChain(store, 'acme', buildRecords(null, Array.from({ length: count }, (_, i) => ({ eventType: types[i % 2]! }))));
  });
  afterAll(async () => {
    await store.close();
  });

  const counting = () => ({
    list: (tenantId: string, query: AuditQuery): Promise<AuditRecord[]> => {
      slices.push(query.limit);
      return store.audit.list(tenantId, query);
    },
  });

  it.each<[string, AuditQuery]>([
    ['the newest records', { limit: 1000 }],
    ['fewer than one slice', { limit: 10 }],
    ['a page below a seq', { limit: 600, before: 700 }],
    ['one event type', { limit: 1000, eventType: 'POLICY_DEPLOYED' }],
    ['a time window', { limit: 300, from: '2026-01-01T00:01:00.000Z', to: '2026-01-01T00:09:00.000Z' }],
    ['the end of the chain', { limit: 1000, before: 40 }],
  ])('reads %s in slices, as one query would', async (_label, query) => {
    slices.length = 0;
    const read = await readAuditList(counting(), 'acme', query);
    expect(read).toEqual(await store.audit.list('acme', query));
    expect(Math.max(...slices)).toBeLessThanOrEqual(AUDIT_LIST_SLICE);
  });
});
