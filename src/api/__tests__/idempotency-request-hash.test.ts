// The hash that tells a repeated Idempotency-Key request from another one is taken before the route
// judges the body: a body JSON.parse accepts but without a canonical form is a 400, never a 500.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { idempotencyRequestHash } from '../middleware/idempotency.js';

const hash = (text: string) => idempotencyRequestHash('PATCH', '/api/v1/audit/anomalies/a/status', JSON.parse(text));

describe('idempotencyRequestHash', () => {
  it('refuses bodies without a canonical form (lone surrogates, numbers beyond a double) with a 400', () => {
    for (const text of ['{"status":"\\ud800"}', '{"status":"\\udc00"}', '{"\\ud800":1}', '{"status":1e999}', '{"status":-1e999}']) {
      expect(() => hash(text), text).toThrow(expect.objectContaining({ status: 400, code: 'ERR_REQUEST_JSON_MALFORMED' }));
    }
    // Their look-alikes in I-JSON hash, each apart from the others.
    const hashes = ['{"status":"\\\\ud800"}', '{"status":"\\ufffd"}', '{"status":"Infinity"}', '{"status":null}'].map(hash);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('is the hash of RFC 8785 canonical JSON for any other body, however its keys are ordered and spaced', () => {
    const body = { status: 'RESOLVED', note: 'fixed 😀 \u0000 "q"', nested: { b: [1, 2.5, -0, 1e21, 5e-324, true, null], a: 'x' } };
    const canonical = createHash('sha256').update(`PATCH\n/api/v1/audit/anomalies/a/status\n${canonicalize(body)}`, 'utf8').digest('hex');
    expect(hash('{ "note": "fixed 😀 \\u0000 \\"q\\"", "status": "RESOLVED", "nested": {"a": "x", "b": [1, 2.5, -0, 1e21, 5e-324, true, null]} }')).toBe(canonical);
    expect(idempotencyRequestHash('PATCH', '/api/v1/audit/anomalies/a/status', body)).toBe(canonical);
  });
});
