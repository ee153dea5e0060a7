import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonicalAuditContent,
  computeAuditHash,
  createAuditTrail,
  GENESIS_PREVIOUS_HASH,
  verifyChain,
  type AuditEvent,
  type AuditRecordContent,
} from '../../src/audit/index.js';
import { openSqliteStore } from '../../src/store/index.js';

interface Vector {
  name?: string;
  record: AuditRecordContent;
  canonical: string;
  hash: string;
}

/**
 * Fixed vectors: stored chains were hashed this way, so any change to canonicalisation, field set
 * or digest must fail here loudly instead of invalidating every chain in production.
 */
const golden = JSON.parse(readFileSync(new URL('./audit-hash-vectors.json', import.meta.url), 'utf8')) as {
  genesisPreviousHash: string;
  vectors: Vector[];
  chain: { tenantId: string; events: AuditEvent[]; records: Vector[] };
};

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('audit hash golden vectors', () => {
  it('pins the genesis previousHash', () => {
    expect(GENESIS_PREVIOUS_HASH).toBe(golden.genesisPreviousHash);
    expect(GENESIS_PREVIOUS_HASH).toBe('0'.repeat(64));
  });

  it.each(golden.vectors.map((v) => [v.name!, v] as const))('%s: canonical form and hash', (_name, vector) => {
    expect(canonicalAuditContent(vector.record)).toBe(vector.canonical);
    expect(computeAuditHash(vector.record)).toBe(vector.hash);
    // The vector file is consistent with plain SHA-256, independent of the code under test.
    expect(sha256(vector.canonical)).toBe(vector.hash);
  });

  it('pins the chain the trail links from fixed events, ids and times', async () => {
    const store = await openSqliteStore(':memory:');
    const expected = golden.chain.records;
    let next = 0;
    const trail = createAuditTrail(store.auditLinks, {
      recorder: {
        newId: () => expected[next]!.record.id,
        now: () => new Date(expected[next]!.record.occurredAt),
      },
    });
    const receipts = [];
    for (const event of golden.chain.events) {
      receipts.push(await trail.recorder.append(golden.chain.tenantId, event));
      next += 1;
    }
    await trail.close();
    expect(receipts.map((receipt) => receipt.id)).toEqual(expected.map((v) => v.record.id));
    const written = [];
    for await (const record of store.audit.scan(golden.chain.tenantId, 1, 10)) written.push(record);
    expect(written).toEqual(expected.map((v) => ({ ...v.record, hash: v.hash })));
    for (const [i, vector] of expected.entries()) {
      expect(canonicalAuditContent(vector.record)).toBe(vector.canonical);
      expect(sha256(vector.canonical)).toBe(vector.hash);
      expect(vector.record.previousHash).toBe(i === 0 ? GENESIS_PREVIOUS_HASH : expected[i - 1]!.hash);
    }
    await expect(verifyChain(store.audit, golden.chain.tenantId)).resolves.toMatchObject({
      valid: true,
      checked: 3,
      headHash: expected[2]!.hash,
    });
    await store.close();
  });
});
