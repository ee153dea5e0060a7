import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bodySha256Hex,
  canonicalString,
  checkSigningHeaders,
  generateNonce,
  NONCE_PATTERN,
  signRequest,
  verifySignature,
  type SignRequestInput,
} from '../request-signature.js';

// Expected signatures below were produced with openssl (src/auth/request-signing.md), not with this
// module, so a drift in the canonical form fails here.
const SECRET = 'tenant-secret-for-tests-0001';
const POST_VECTOR: SignRequestInput = {
  method: 'POST',
  pathWithQuery: '/graphql?trace=1',
  body: '{"query":"{ listPolicies { id } }"}',
  tenantId: 'acme-corp',
  role: 'MEMBER',
  secret: SECRET,
  timestamp: 1_700_000_000,
  nonce: 'n0nce_Example-0123456789',
};
const NOW = 1_700_000_000;
const PATH_CHAR = fc.constantFrom(...'abcXYZ019-._~%!$&\'()*+,;=:@/?');
const PATH_WITH_QUERY = fc.string({ unit: PATH_CHAR, maxLength: 40 }).map((rest) => `/${rest}`);

function verifyInput(input: SignRequestInput, overrides: Partial<Parameters<typeof verifySignature>[0]> = {}) {
  const headers = signRequest(input);
  return {
    method: input.method,
    pathWithQuery: input.pathWithQuery,
    body: input.body,
    tenantId: headers['X-Tenant-Id'],
    role: headers['X-User-Role'],
    timestamp: headers['X-Policy-Timestamp'],
    nonce: headers['X-Policy-Nonce'],
    signatureHeader: headers['X-Policy-Signature'],
    secrets: [input.secret],
    nowSeconds: NOW,
    ...overrides,
  };
}

describe('canonical form', () => {
  it('is the seven fields, one a line, with the body hash last', () => {
    expect(
      canonicalString({
        method: 'post',
        pathWithQuery: '/graphql?trace=1',
        timestamp: '1700000000',
        nonce: 'n0nce_Example-0123456789',
        tenantId: 'acme-corp',
        role: 'MEMBER',
        body: '{"query":"{ listPolicies { id } }"}',
      }),
    ).toBe(
      [
        'POST',
        '/graphql?trace=1',
        '1700000000',
        'n0nce_Example-0123456789',
        'acme-corp',
        'MEMBER',
        '20ff7da268dbff344121ead9f2183874d4deec88d4e1bf5925eb74317bbeec56',
      ].join('\n'),
    );
  });

  it('hashes an absent or empty body as the empty string', () => {
    const empty = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    expect(bodySha256Hex(undefined)).toBe(empty);
    expect(bodySha256Hex(null)).toBe(empty);
    expect(bodySha256Hex('')).toBe(empty);
    expect(bodySha256Hex(new Uint8Array())).toBe(empty);
  });

  it('hashes a string body as its UTF-8 bytes', () => {
    const text = '{"nom":"Müller ✓"}';
    expect(bodySha256Hex(text)).toBe(bodySha256Hex(Buffer.from(text, 'utf8')));
    expect(bodySha256Hex(text)).not.toBe(bodySha256Hex(Buffer.from(text, 'latin1')));
  });

  it('refuses line breaks inside a field', () => {
    expect(() =>
      canonicalString({ method: 'GET', pathWithQuery: '/a', timestamp: '1', nonce: 'x'.repeat(16), tenantId: 't', role: 'MEMBER\nADMIN', body: '' }),
    ).toThrow(/line breaks/);
  });
});

describe('signRequest', () => {
  it('matches the fixed POST vector', () => {
    expect(signRequest(POST_VECTOR)).toEqual({
      'X-Tenant-Id': 'acme-corp',
      'X-User-Role': 'MEMBER',
      'X-Policy-Timestamp': '1700000000',
      'X-Policy-Nonce': 'n0nce_Example-0123456789',
      'X-Policy-Signature': 'v1=uU8nSeETdVWfrX-9TLvazYjAL30x4afVx1eCcP4_VHI',
    });
  });

  it('matches the fixed empty-body GET vector, with a lowercase method', () => {
    const headers = signRequest({
      method: 'get',
      pathWithQuery: '/graphql?query=%7B__typename%7D',
      tenantId: 't_1',
      role: 'VIEWER',
      secret: SECRET,
      timestamp: 1_700_000_300,
      nonce: 'AAAAAAAAAAAAAAAA',
    });
    expect(headers['X-Policy-Signature']).toBe('v1=QaKE4JbdxmyCWB7bZOpouR3-9JGHOAAlwa_DVfQRchg');
  });

  it('gives the same signature for a string body and its UTF-8 bytes', () => {
    const body = '{"name":"Zoë"}';
    expect(signRequest({ ...POST_VECTOR, body })['X-Policy-Signature']).toBe(
      signRequest({ ...POST_VECTOR, body: new TextEncoder().encode(body) })['X-Policy-Signature'],
    );
  });

  it('fills in the current time and a fresh well-formed nonce', () => {
    const before = Math.floor(Date.now() / 1000);
    const { timestamp: _t, nonce: _n, ...rest } = POST_VECTOR;
    const first = signRequest(rest);
    const second = signRequest(rest);
    const after = Math.floor(Date.now() / 1000);
    expect(Number(first['X-Policy-Timestamp'])).toBeGreaterThanOrEqual(before);
    expect(Number(first['X-Policy-Timestamp'])).toBeLessThanOrEqual(after);
    expect(first['X-Policy-Nonce']).toMatch(NONCE_PATTERN);
    expect(first['X-Policy-Nonce']).not.toBe(second['X-Policy-Nonce']);
    expect(first['X-Policy-Signature']).not.toBe(second['X-Policy-Signature']);
  });

  it('refuses inputs the server would reject', () => {
    expect(() => signRequest({ ...POST_VECTOR, nonce: 'short' })).toThrow(/nonce/);
    expect(() => signRequest({ ...POST_VECTOR, tenantId: 'acme corp' })).toThrow(/tenant/);
    expect(() => signRequest({ ...POST_VECTOR, timestamp: 1.5 })).toThrow(/timestamp/);
    expect(() => signRequest({ ...POST_VECTOR, secret: '' })).toThrow(/secret/);
  });

  it('produces nonces that always fit the nonce format', () => {
    for (let i = 0; i < 200; i += 1) expect(generateNonce()).toMatch(NONCE_PATTERN);
  });
});

describe('verifySignature', () => {
  it('accepts the request it signed and reports which secret matched', () => {
    expect(verifySignature(verifyInput(POST_VECTOR))).toEqual({
      ok: true,
      secretIndex: 0,
      timestamp: '1700000000',
      nonce: 'n0nce_Example-0123456789',
    });
  });

  it('rejects a wrong secret', () => {
    const result = verifySignature(verifyInput(POST_VECTOR, { secrets: ['another-secret'] }));
    expect(result).toEqual({ ok: false, code: 'ERR_AUTH_SIGNATURE_INVALID', message: 'request signature does not match' });
  });

  it('rejects everything when the tenant has no secrets, with the same answer as a wrong secret', () => {
    const unknown = verifySignature(verifyInput(POST_VECTOR, { secrets: [] }));
    const wrong = verifySignature(verifyInput(POST_VECTOR, { secrets: ['another-secret'] }));
    expect(unknown).toEqual(wrong);
  });

  it('accepts both active secrets during rotation, and not a retired one', () => {
    const rotated = ['new-secret-2', SECRET];
    expect(verifySignature(verifyInput(POST_VECTOR, { secrets: rotated }))).toMatchObject({ ok: true, secretIndex: 1 });
    const signedWithNew = verifyInput({ ...POST_VECTOR, secret: 'new-secret-2' }, { secrets: rotated });
    expect(verifySignature(signedWithNew)).toMatchObject({ ok: true, secretIndex: 0 });
    const retired = verifyInput(POST_VECTOR, { secrets: ['new-secret-3', 'new-secret-2'] });
    expect(verifySignature(retired)).toMatchObject({ ok: false, code: 'ERR_AUTH_SIGNATURE_INVALID' });
  });

  it.each([
    ['body', { body: '{"query":"{ listPolicies { id source } }"}' }],
    ['empty body', { body: '' }],
    ['path', { pathWithQuery: '/graphql' }],
    ['query string', { pathWithQuery: '/graphql?trace=2' }],
    ['method', { method: 'PUT' }],
    ['role', { role: 'ADMIN' }],
    ['tenant', { tenantId: 'acme-corp2' }],
    ['nonce', { nonce: 'n0nce_Example-0123456780' }],
    ['timestamp', { timestamp: '1700000001' }],
  ])('rejects a tampered %s', (_field, tampered) => {
    expect(verifySignature({ ...verifyInput(POST_VECTOR), ...tampered })).toMatchObject({
      ok: false,
      code: 'ERR_AUTH_SIGNATURE_INVALID',
      message: 'request signature does not match',
    });
  });

  it('rejects a tampered byte anywhere in the body', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, flip) => {
        const input = { ...POST_VECTOR, body: bytes };
        const tampered = Uint8Array.from(bytes);
        const index = at % tampered.length;
        tampered[index] = tampered[index]! ^ flip;
        expect(verifySignature(verifyInput(input)).ok).toBe(true);
        expect(verifySignature(verifyInput(input, { body: tampered })).ok).toBe(false);
      }),
    );
  });

  it('round-trips arbitrary paths, roles and bodies', () => {
    fc.assert(
      fc.property(
        PATH_WITH_QUERY,
        fc.constantFrom('VIEWER', 'MEMBER', 'ADMIN', 'OWNER'),
        fc.string(),
        fc.uint8Array({ minLength: 12, maxLength: 96 }).map((bytes) => Buffer.from(bytes).toString('base64url')),
        (path, role, body, nonce) => {
          const input = { ...POST_VECTOR, pathWithQuery: path, role, body, nonce };
          expect(verifySignature(verifyInput(input)).ok).toBe(true);
        },
      ),
    );
  });

  it('rejects timestamps outside the window, past and future, and accepts its edges', () => {
    const at = (offset: number, windowSeconds?: number) =>
      verifySignature(verifyInput({ ...POST_VECTOR, timestamp: NOW + offset }, { windowSeconds }));
    expect(at(-300).ok).toBe(true);
    expect(at(300).ok).toBe(true);
    expect(at(-301)).toMatchObject({ ok: false, code: 'ERR_AUTH_TIMESTAMP_STALE' });
    expect(at(301)).toMatchObject({ ok: false, code: 'ERR_AUTH_TIMESTAMP_STALE' });
    expect(at(-3600)).toMatchObject({ ok: false, message: expect.stringMatching(/outside the accepted window of ±300 s/) });
    expect(at(-60, 30)).toMatchObject({ ok: false, code: 'ERR_AUTH_TIMESTAMP_STALE' });
    expect(at(-30, 30).ok).toBe(true);
  });

  it('checks freshness against the real clock by default', () => {
    const fresh = { ...POST_VECTOR, timestamp: Math.floor(Date.now() / 1000) };
    expect(verifySignature({ ...verifyInput(fresh), nowSeconds: undefined }).ok).toBe(true);
    expect(verifySignature({ ...verifyInput(POST_VECTOR), nowSeconds: undefined })).toMatchObject({
      code: 'ERR_AUTH_TIMESTAMP_STALE',
    });
  });

  it('rejects a malformed timestamp as invalid', () => {
    for (const timestamp of ['1700000000.5', '-1700000000', '01700000000', 'yesterday', '1700000000000000']) {
      expect(verifySignature(verifyInput(POST_VECTOR, { timestamp }))).toMatchObject({
        ok: false,
        code: 'ERR_AUTH_SIGNATURE_INVALID',
        message: expect.stringMatching(/X-Policy-Timestamp must be Unix time/),
      });
    }
  });

  it('accepts nonces of 16 and 128 characters and rejects anything else', () => {
    for (const nonce of ['a'.repeat(16), 'Z_-9'.repeat(32)]) {
      expect(verifySignature(verifyInput({ ...POST_VECTOR, nonce })).ok).toBe(true);
    }
    for (const nonce of ['a'.repeat(15), 'a'.repeat(129), 'abcdefghijklmno+', 'abcdefghijklmno.', 'abcdefghijklmnoé']) {
      expect(verifySignature(verifyInput(POST_VECTOR, { nonce }))).toMatchObject({
        ok: false,
        code: 'ERR_AUTH_SIGNATURE_INVALID',
        message: expect.stringMatching(/X-Policy-Nonce must be 16 to 128 characters/),
      });
    }
  });

  it('rejects a malformed signature header', () => {
    const good = signRequest(POST_VECTOR)['X-Policy-Signature'];
    const value = good.slice(3);
    const std = Buffer.from(value, 'base64url').toString('base64');
    for (const signatureHeader of [value, `v2=${value}`, `v1=${std}`, `v1=${value}=`, `v1=${value.slice(1)}`, `v1=${value}A`, 'v1=']) {
      expect(verifySignature(verifyInput(POST_VECTOR, { signatureHeader }))).toMatchObject({
        ok: false,
        code: 'ERR_AUTH_SIGNATURE_INVALID',
      });
    }
  });

  it('reports every missing signing header by name', () => {
    expect(checkSigningHeaders({ signatureHeader: undefined, timestamp: '', nonce: 'a'.repeat(16) })).toEqual({
      ok: false,
      code: 'ERR_AUTH_SIGNATURE_MISSING',
      message: 'request is not signed: missing X-Policy-Signature, X-Policy-Timestamp',
    });
  });
});
