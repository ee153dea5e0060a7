import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  computeAuditHash,
  createAuditTrail,
  createChainPageThreads,
  createChainVerifier,
  verifyChain,
  type AuditRecord,
  type ChainPageThreads,
  type ChainVerifier,
} from '../../src/audit/index.js';
import type { Store } from '../../src/store/index.js';
import { describeWithMongo } from '../support/mongo-env.js';
import { mongoTarget, sqliteTarget, type StoreTarget } from '../support/store-targets.js';

const LENGTH = 30;

async function seedChain(store: Store, tenantId: string): Promise<AuditRecord[]> {
  const trail = createAuditTrail(store.auditLinks, { recorder: { batchSize: 8 }, linker: { batchSize: 8 } });
  await Promise.all(
    Array.from({ length: LENGTH }, (_, n) =>
      trail.recorder.append(tenantId, {
        eventType: 'POLICY_EVALUATED',
        policyModule: 'com.acme.loans',
        policyFunction: 'eligible',
        actorId: 'svc',
        payload: { n, result: n % 3 === 0 },
      })),
  );
  await trail.close();
  const records: AuditRecord[] = [];
  for await (const record of store.audit.scan(tenantId, 1, LENGTH)) records.push(record);
  return records;
}

/** Edits made behind the store's back, through the backend's own connection, are found by seq. */
function tamperSuite(makeTarget: () => StoreTarget): void {
  let target: StoreTarget;
  let store: Store;
  let threads: ChainPageThreads;
  /** The API's verifier (pages read, on SQLite, and hashed on threads, a verified prefix kept per tenant), as src/service/api-app.ts builds it. */
  let verifier: ChainVerifier;

  beforeAll(async () => {
    target = makeTarget();
    store = await target.connect();
    threads = createChainPageThreads(2);
    verifier = createChainVerifier({ records: store.audit, check: threads.check, storedPages: threads, concurrency: 2, fullIntervalMs: 3_600_000, pageSize: 7 });
  });
  afterAll(async () => {
    await threads?.close();
    await target?.dispose();
  });

  it('reports exactly the seq whose payload was edited', async () => {
    const records = await seedChain(store, 'tamper-payload');
    await expect(verifyChain(store.audit, 'tamper-payload')).resolves.toMatchObject({ valid: true, checked: LENGTH });
    await target.rawTamperAudit('tamper-payload', 17, { payloadText: JSON.stringify({ n: 16, result: true }) });
    expect(await verifyChain(store.audit, 'tamper-payload', { pageSize: 5 })).toEqual({
      valid: false,
      checked: 16,
      headSeq: LENGTH,
      headHash: records[LENGTH - 1]!.hash,
      firstInvalidSeq: 17,
      reason: 'hash does not match the record content',
    });
  });

  it('reports the edited seq when only the actor changes', async () => {
    await seedChain(store, 'tamper-actor');
    await target.rawTamperAudit('tamper-actor', 1, { actorId: 'intruder' });
    await expect(verifyChain(store.audit, 'tamper-actor')).resolves.toMatchObject({ valid: false, firstInvalidSeq: 1 });
  });

  it('catches a record re-hashed after its edit at the link of the next record', async () => {
    const records = await seedChain(store, 'tamper-rehash');
    const forged = { ...records[9]!, payload: { n: 9, result: false } };
    await target.rawTamperAudit('tamper-rehash', 10, {
      payloadText: JSON.stringify(forged.payload),
      hash: computeAuditHash(forged),
    });
    await expect(verifyChain(store.audit, 'tamper-rehash')).resolves.toMatchObject({
      valid: false,
      checked: 10,
      firstInvalidSeq: 11,
      reason: 'previousHash does not match the hash of seq 10',
    });
  });

  it.each([1, 5, 16, LENGTH - 1])('reports deleted record %i at its seq', async (seq) => {
    const tenant = `tamper-delete-${seq}`;
    await seedChain(store, tenant);
    await target.rawDeleteAudit(tenant, seq);
    // A fresh connection: no remembered head to lean on.
    const reader = await target.connect();
    await expect(verifyChain(reader.audit, tenant)).resolves.toMatchObject({ valid: false, firstInvalidSeq: seq });
  });

  it('shows a removed newest record only as a changed head hash', async () => {
    // Truncation leaves a shorter valid chain: only a head hash noted earlier reveals it.
    const records = await seedChain(store, 'tamper-truncate');
    await target.rawDeleteAudit('tamper-truncate', LENGTH);
    const reader = await target.connect();
    expect(await verifyChain(reader.audit, 'tamper-truncate')).toMatchObject({
      valid: true,
      checked: LENGTH - 1,
      headSeq: LENGTH - 1,
      headHash: records[LENGTH - 2]!.hash,
    });
    expect(records[LENGTH - 2]!.hash).not.toBe(records[LENGTH - 1]!.hash);
  });

  it('finds an edit of the newest record after a verification kept the prefix, at once', async () => {
    await seedChain(store, 'cached-newest');
    await expect(verifier.verify('cached-newest')).resolves.toMatchObject({ valid: true, checked: LENGTH });
    await target.rawTamperAudit('cached-newest', LENGTH, { actorId: 'intruder' });
    await expect(verifier.verify('cached-newest')).resolves.toMatchObject({ valid: false, checked: LENGTH - 1, firstInvalidSeq: LENGTH });
  });

  it('finds an edit of an older record after a verification kept the prefix on a whole walk, and from then on', async () => {
    await seedChain(store, 'cached-older');
    await expect(verifier.verify('cached-older')).resolves.toMatchObject({ valid: true, checked: LENGTH });
    await target.rawTamperAudit('cached-older', 12, { payloadText: JSON.stringify({ n: 11, result: true }) });
    // Below the kept prefix: only a whole walk (full=true, or the interval) reads it again.
    await expect(verifier.verify('cached-older')).resolves.toMatchObject({ valid: true, checked: LENGTH });
    const broken = { valid: false, checked: 11, headSeq: LENGTH, firstInvalidSeq: 12, reason: 'hash does not match the record content' };
    await expect(verifier.verify('cached-older', { full: true })).resolves.toMatchObject(broken);
    await expect(verifier.verify('cached-older')).resolves.toMatchObject(broken);
  });

  it('reports newest records removed after a verification as missing', async () => {
    await seedChain(store, 'cached-truncated');
    await expect(verifier.verify('cached-truncated')).resolves.toMatchObject({ valid: true, checked: LENGTH });
    await target.rawDeleteAudit('cached-truncated', LENGTH);
    await expect(verifier.verify('cached-truncated')).resolves.toMatchObject({ valid: false, checked: LENGTH - 1, firstInvalidSeq: LENGTH });
  });

  it('reports a deleted record at its seq through the API\'s verifier too', async () => {
    await seedChain(store, 'cached-deleted');
    await target.rawDeleteAudit('cached-deleted', 9);
    const reader = await target.connect();
    const fresh = createChainVerifier({ records: reader.audit, check: threads.check, storedPages: threads, concurrency: 1, fullIntervalMs: 3_600_000 });
    await expect(fresh.verify('cached-deleted')).resolves.toMatchObject({ valid: false, checked: 8, firstInvalidSeq: 9 });
  });

  it('leaves other tenants\' chains valid', async () => {
    await seedChain(store, 'tamper-bystander');
    await expect(verifyChain(store.audit, 'tamper-bystander')).resolves.toMatchObject({ valid: true, checked: LENGTH });
  });
}

describe('audit tampering: SQLite', () => {
  tamperSuite(sqliteTarget);

  it('refuses updates and deletes of audit records through SQL while the triggers stand', async () => {
    const target = sqliteTarget();
    try {
      const store = await target.connect();
      await seedChain(store, 'guarded');
      const db = (await (target as ReturnType<typeof sqliteTarget>).connectSqlite()).raw;
      expect(() => db.prepare("UPDATE audit_records SET actor_id = 'x' WHERE tenant_id = 'guarded' AND seq = 2").run()).toThrow(
        /append-only/,
      );
      expect(() => db.prepare("DELETE FROM audit_records WHERE tenant_id = 'guarded'").run()).toThrow(/append-only/);
      await expect(verifyChain(store.audit, 'guarded')).resolves.toMatchObject({ valid: true, checked: LENGTH });
    } finally {
      await target.dispose();
    }
  });
});

describeWithMongo('audit tampering: MongoDB', (url) => {
  tamperSuite(() => mongoTarget(url));
});
