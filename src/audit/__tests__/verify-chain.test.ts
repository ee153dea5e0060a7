import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import type { AuditChainRepository } from '../audit-chain-store.js';
import { createAuditTrail, verifyChain, type VerifyChainProgress } from '../index.js';

describe('verifyChain', () => {
  let store: SqliteStore;

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    const trail = createAuditTrail(store.auditLinks, { recorder: { batchSize: 10 }, linker: { batchSize: 10 } });
    await Promise.all(
      Array.from({ length: 25 }, (_, n) => trail.recorder.append('acme', { eventType: 'E', actorId: 'a', payload: { n } })),
    );
    await trail.close();
    // Tampering needs the append-only triggers out of the way.
    store.raw.exec('DROP TRIGGER audit_records_no_update; DROP TRIGGER audit_records_no_delete;');
  });
  afterEach(async () => {
    await store.close();
  });

  const set = (seq: number, column: string, value: string | number) =>
    store.raw.prepare(`UPDATE audit_records SET ${column} = ? WHERE tenant_id = 'acme' AND seq = ?`).run(value, seq);

  it('accepts an intact chain and reports its head', async () => {
    const head = await store.audit.head('acme');
    expect(await verifyChain(store.audit, 'acme', { pageSize: 4 })).toEqual({
      valid: true,
      checked: 25,
      headSeq: 25,
      headHash: head!.hash,
      firstInvalidSeq: null,
      reason: null,
    });
  });

  it('accepts an empty chain', async () => {
    expect(await verifyChain(store.audit, 'nobody')).toEqual({
      valid: true, checked: 0, headSeq: 0, headHash: null, firstInvalidSeq: null, reason: null,
    });
  });

  it('reports progress per page and at the end', async () => {
    const seen: VerifyChainProgress[] = [];
    await verifyChain(store.audit, 'acme', { pageSize: 10, onProgress: (p) => seen.push(p) });
    expect(seen).toEqual([
      { checked: 0, total: 25 },
      { checked: 10, total: 25 },
      { checked: 20, total: 25 },
      { checked: 25, total: 25 },
    ]);
  });

  it('finds an edited payload at its seq', async () => {
    set(7, 'payload', '{"n":700}');
    expect(await verifyChain(store.audit, 'acme', { pageSize: 4 })).toMatchObject({
      valid: false, checked: 6, firstInvalidSeq: 7, reason: 'hash does not match the record content',
    });
  });

  it('finds a broken link at the record that carries it', async () => {
    set(12, 'previous_hash', 'a'.repeat(64));
    expect(await verifyChain(store.audit, 'acme')).toMatchObject({
      valid: false, firstInvalidSeq: 12, reason: 'previousHash does not match the hash of seq 11',
    });
  });

  it('finds a wrong genesis link', async () => {
    set(1, 'previous_hash', '1'.repeat(64));
    expect(await verifyChain(store.audit, 'acme')).toMatchObject({
      valid: false, checked: 0, firstInvalidSeq: 1, reason: 'previousHash does not match the genesis hash',
    });
  });

  it('finds a re-hashed record through the link of its successor', async () => {
    set(9, 'hash', 'b'.repeat(64));
    expect(await verifyChain(store.audit, 'acme')).toMatchObject({ firstInvalidSeq: 9 });
  });

  it('finds a missing record', async () => {
    store.raw.prepare("DELETE FROM audit_records WHERE tenant_id = 'acme' AND seq = 14").run();
    expect(await verifyChain(store.audit, 'acme', { pageSize: 5 })).toMatchObject({
      valid: false, checked: 13, firstInvalidSeq: 14, reason: 'seq 14 is missing (the next stored record is seq 15)',
    });
  });

  it('finds records missing at the head', async () => {
    store.raw.prepare("DELETE FROM audit_records WHERE tenant_id = 'acme' AND seq BETWEEN 20 AND 24").run();
    expect(await verifyChain(store.audit, 'acme')).toMatchObject({ valid: false, firstInvalidSeq: 20, headSeq: 25 });
  });

  it('reports an unreadable record at its seq instead of failing', async () => {
    set(3, 'payload', '{not json');
    expect(await verifyChain(store.audit, 'acme')).toMatchObject({
      valid: false, checked: 2, firstInvalidSeq: 3, reason: expect.stringMatching(/^record is unreadable: payload is not JSON/),
    });
  });

  it('checks records appended while it runs, and reports the head it read first', async () => {
    const trail = createAuditTrail(store.auditLinks);
    const growing: AuditChainRepository = {
      ...store.audit,
      async *scan(tenantId, fromSeq, pageSize) {
        await trail.recorder.append('acme', { eventType: 'LATE', actorId: 'a', payload: {} });
        await trail.flush();
        yield* store.audit.scan(tenantId, fromSeq, pageSize);
      },
    };
    const seen: VerifyChainProgress[] = [];
    expect(await verifyChain(growing, 'acme', { onProgress: (p) => seen.push(p) })).toMatchObject({
      valid: true, checked: 26, headSeq: 25,
    });
    expect(seen.at(-1)).toEqual({ checked: 26, total: 26 });
    await trail.close();
  });

  it('walks past a head that a store under-reports, so records beyond it are still checked', async () => {
    set(25, 'payload', '{"n":-1}');
    const misled: AuditChainRepository = { ...store.audit, head: async () => ({ seq: 15, hash: 'x'.repeat(64) }) };
    expect(await verifyChain(misled, 'acme')).toMatchObject({ valid: false, checked: 24, firstInvalidSeq: 25, headSeq: 15 });
  });

  it('refuses a bad page size', async () => {
    await expect(verifyChain(store.audit, 'acme', { pageSize: 0 })).rejects.toThrow(RangeError);
  });
});
