// Content-Encoding on every route that takes a body: the signing scheme covers the bytes as sent,
// so the service never inflates a body; anything but `identity` is a 400 before the body is read.
// Real HTTP, Redis, worker threads and SQLite; needs `npx tsc -p tsconfig.json` first (threads).
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/auth/request-signature.js';
import { graphqlRoutes, startPoliciesHarness, type PoliciesHarness } from './policies-support/policies-harness.js';

const SOURCE = 'Module acme.encoding.\n\nRule price given amount as Int, produce Int:\n  Return amount times 2.\n';

const ROUTES = [
  {
    name: 'evaluation',
    path: '/api/v1/policies/evaluate-source',
    role: 'MEMBER',
    body: () => JSON.stringify({ source: SOURCE, functionName: 'price', context: { amount: 21 } }),
    accepted: 200,
  },
  {
    name: 'registry',
    path: '/api/v1/policies',
    // An active deploy needs ADMIN.
    role: 'ADMIN',
    body: () => JSON.stringify({ source: SOURCE, locale: 'en-US' }),
    accepted: 201,
  },
  {
    name: 'graphql',
    path: '/graphql',
    role: 'MEMBER',
    body: () => JSON.stringify({ query: '{ listPolicies { id } }' }),
    accepted: 200,
  },
] as const;

const ENCODINGS: ReadonlyArray<[string, string, (text: string) => Buffer]> = [
  ['gzip (valid)', 'gzip', (text) => gzipSync(text)],
  ['gzip (corrupt)', 'gzip', () => Buffer.from('\x1f\x8b\x08\x00this is not deflate data at all', 'latin1')],
  ['deflate', 'deflate', (text) => deflateSync(text)],
  ['br', 'br', (text) => brotliCompressSync(text)],
  ['GZIP, identity (a list)', 'GZIP, identity', (text) => gzipSync(text)],
];

let h: PoliciesHarness;

beforeAll(async () => {
  h = await startPoliciesHarness({ extraRoutes: graphqlRoutes });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

/** A request to the route, signed over exactly the bytes sent, as the scheme requires. */
async function send({ path, role }: (typeof ROUTES)[number], body: Buffer, encoding: string | undefined) {
  const tenant = h.tenants.a;
  const headers: Record<string, string> = {
    ...signRequest({ method: 'POST', pathWithQuery: path, body, tenantId: tenant.tenantId, role, secret: tenant.secret }),
    'content-type': 'application/json',
    ...(encoding !== undefined ? { 'content-encoding': encoding } : {}),
  };
  const response = await fetch(`${h.baseUrl}${path}`, { method: 'POST', headers, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('Content-Encoding of request bodies', () => {
  for (const route of ROUTES) {
    describe(`${route.name} route (${route.path})`, () => {
      it.each(ENCODINGS)('refuses %s with 400 ERR_REQUEST_ENCODING_UNSUPPORTED', async (_label, encoding, encode) => {
        const response = await send(route, encode(route.body()), encoding);
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ result: null, executionTimeMs: 0, code: 'ERR_REQUEST_ENCODING_UNSUPPORTED' });
        expect(response.body.error).toContain('is not supported: send the request body uncompressed');
        expect(JSON.stringify(response.body)).not.toMatch(/\bat .+\.(?:js|ts):\d+/);
      });

      it('accepts identity (a content coding is named in any case) and no Content-Encoding alike', async () => {
        expect((await send(route, Buffer.from(route.body()), 'identity')).status).toBe(route.accepted);
        expect((await send(route, Buffer.from(route.body()), 'Identity')).status).toBe(route.accepted);
        expect((await send(route, Buffer.from(route.body()), undefined)).status).toBe(route.accepted);
      });
    });
  }

  it('refuses an encoded body even on a path that does not exist, and before reading a large one', async () => {
    const response = await fetch(`${h.baseUrl}/api/v1/nowhere`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('ERR_REQUEST_ENCODING_UNSUPPORTED');
  });
});

describe('deeply nested JSON bodies', () => {
  for (const route of ROUTES) {
    it(`refuses a body nested past the JSON limit on the ${route.name} route with 400, and admits 128 levels`, async () => {
      const deep = Buffer.from(`{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`);
      const response = await send(route, deep, undefined);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ result: null, code: 'ERR_REQUEST_JSON_TOO_DEEP' });
      expect(response.body.error).toContain('more than 128 levels deep');
      const fits = await send(route, Buffer.from(`{"x":${'['.repeat(127)}${']'.repeat(127)}}`), undefined);
      expect(fits.status).toBe(400);
      expect(fits.body.code).not.toBe('ERR_REQUEST_JSON_TOO_DEEP');
    });
  }
});

describe('wide JSON objects in bodies', () => {
  const wide = (members: number, at = '') =>
    Buffer.from(`{"x":[${at}{${Array.from({ length: members }, (_, i) => `"k${i}":"a:b,{}\\"[]"`).join(',')}}]}`);
  for (const route of ROUTES) {
    it(`refuses an object of more than 10,000 members on the ${route.name} route with 400, and admits 10,000 (colons in strings do not count)`, async () => {
      const response = await send(route, wide(10_001), undefined);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ result: null, code: 'ERR_REQUEST_JSON_TOO_WIDE' });
      expect(response.body.error).toBe('request body has an object of more than 10,000 members; the limit is 10,000');
      const fits = await send(route, wide(10_000, '[{"y":1}],'), undefined);
      expect(fits.body.code).not.toBe('ERR_REQUEST_JSON_TOO_WIDE');
    });
  }
});
