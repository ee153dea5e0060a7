import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalAuditContent, computeAuditHash, type AuditRecordContent } from '../audit-hash.js';

const content: AuditRecordContent = {
  id: 'rec-1',
  seq: 1,
  eventType: 'POLICY_DEPLOYED',
  policyModule: null,
  policyFunction: null,
  actorId: 'admin',
  occurredAt: '2026-01-01T00:00:00.000Z',
  payload: { version: 2, module: 'com.acme' },
  previousHash: '0'.repeat(64),
};

describe('canonicalAuditContent', () => {
  it('writes the nine hashed fields with sorted keys and no whitespace, nulls included', () => {
    expect(canonicalAuditContent(content)).toBe(
      '{"actorId":"admin","eventType":"POLICY_DEPLOYED","id":"rec-1","occurredAt":"2026-01-01T00:00:00.000Z",' +
        '"payload":{"module":"com.acme","version":2},"policyFunction":null,"policyModule":null,' +
        `"previousHash":"${'0'.repeat(64)}","seq":1}`,
    );
  });

  it('ignores fields outside the hashed set, including a stale hash', () => {
    const extended = { ...content, hash: 'f'.repeat(64), _id: 'x' } as AuditRecordContent;
    expect(canonicalAuditContent(extended)).toBe(canonicalAuditContent(content));
  });
});

describe('computeAuditHash', () => {
  it('is the lowercase hex SHA-256 of the canonical UTF-8 text', () => {
    const expected = createHash('sha256').update(Buffer.from(canonicalAuditContent(content), 'utf8')).digest('hex');
    expect(computeAuditHash(content)).toBe(expected);
    expect(computeAuditHash(content)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on key order in the payload', () => {
    const reordered = { ...content, payload: { module: 'com.acme', version: 2 } };
    expect(computeAuditHash(reordered)).toBe(computeAuditHash(content));
  });

  it('changes when any hashed field changes', () => {
    const fields: (keyof AuditRecordContent)[] = [
      'id', 'eventType', 'policyModule', 'policyFunction', 'actorId', 'occurredAt', 'previousHash',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.string({ minLength: 1 }), (field, value) => {
        fc.pre(content[field] !== value);
        expect(computeAuditHash({ ...content, [field]: value })).not.toBe(computeAuditHash(content));
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 1e9 }), (seq) => {
        expect(computeAuditHash({ ...content, seq })).not.toBe(computeAuditHash(content));
      }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (payload) => {
        fc.pre(canonicalAuditContent({ ...content, payload }) !== canonicalAuditContent(content));
        expect(computeAuditHash({ ...content, payload })).not.toBe(computeAuditHash(content));
      }),
    );
  });
});
