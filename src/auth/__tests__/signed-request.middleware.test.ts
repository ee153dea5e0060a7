import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import Koa, { type Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../api/middleware/error-handler.js';
import { jsonBody } from '../../api/middleware/json-body.js';
import { createLogger } from '../../logging/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import { createNonceGuard, type NonceGuard } from '../nonce-guard.js';
import { signRequest } from '../request-signature.js';
import {
  createSignedRequestAuth,
  readRawBody,
  type SignedRequestAuthOptions,
} from '../signed-request.middleware.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-${randomUUID()}:nonce:`;
const OLD_SECRET = 'acme-secret-version-1';
const NEW_SECRET = 'acme-secret-version-2';
const OTHER_SECRET = 'globex-secret-version-1';

let redis: Redis;
let store: SqliteStore;
let nonceGuard: NonceGuard;
const servers: Array<{ close: () => Promise<void> }> = [];

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  nonceGuard = createNonceGuard({ redis, keyPrefix: prefix });
  store = await openSqliteStore(':memory:');
  const createdAt = new Date().toISOString();
  await store.tenants.create({ tenantId: 'acme', createdAt }, { version: 1, secret: OLD_SECRET, createdAt });
  await store.tenants.addSecret('acme', { version: 2, secret: NEW_SECRET, createdAt });
  await store.tenants.create({ tenantId: 'globex', createdAt }, { version: 1, secret: OTHER_SECRET, createdAt });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await store.close();
});

/** The envelope the service's outermost middleware produces: only exposed errors show their text. */
const errorEnvelope: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    const e = error as { status?: number; code?: string; expose?: boolean; message: string };
    ctx.status = e.expose && e.status ? e.status : 500;
    ctx.body = {
      result: null,
      error: e.expose ? e.message : 'internal error',
      executionTimeMs: 0,
      code: e.expose ? e.code : 'ERR_INTERNAL',
    };
  }
};

interface AppOptions extends Partial<SignedRequestAuthOptions> {
  upstream?: Middleware[];
}

async function startApp(options: AppOptions = {}): Promise<string> {
  const { upstream = [], ...auth } = options;
  const app = new Koa();
  app.use(errorEnvelope);
  for (const middleware of upstream) app.use(middleware);
  app.use(createSignedRequestAuth({ tenants: store.tenants, nonceGuard, minRole: 'MEMBER', ...auth }));
  app.use(async (ctx) => {
    const raw = await readRawBody(ctx);
    ctx.body = {
      auth: ctx.state.auth,
      principal: ctx.state.principal,
      tenantId: ctx.state.tenantId,
      url: ctx.originalUrl,
      // JSON may start with a byte order mark, which JSON.parse does not skip.
      body: raw.length > 0 ? JSON.parse(raw.toString('utf8').replace(/^\uFEFF/, '')) : null,
      parsedUpstream: ctx.request.body ?? null,
    };
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface SendOptions {
  method?: string;
  path?: string;
  body?: string;
  tenantId?: string;
  role?: string;
  secret?: string;
  timestamp?: number;
  nonce?: string;
  /** Applied after signing: simulates tampering in transit. */
  override?: Record<string, string | null>;
  /** The bytes sent instead of the signed body (tampering in transit). */
  sentBody?: Uint8Array;
  /** Signs and sends these bytes as the body. */
  bodyBytes?: Uint8Array;
  extra?: Record<string, string>;
}

async function send(base: string, options: SendOptions = {}) {
  const method = options.method ?? 'POST';
  const path = options.path ?? '/graphql?trace=1';
  const body = options.bodyBytes ?? options.body ?? (method === 'GET' ? '' : '{"query":"{ listPolicies { id } }"}');
  const headers: Record<string, string> = {
    ...signRequest({
      method,
      pathWithQuery: path,
      body,
      tenantId: options.tenantId ?? 'acme',
      role: options.role ?? 'MEMBER',
      secret: options.secret ?? NEW_SECRET,
      ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
      ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
    }),
    'content-type': 'application/json',
    ...options.extra,
  };
  for (const [name, value] of Object.entries(options.override ?? {})) {
    const existing = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase());
    if (existing) delete headers[existing];
    if (value !== null) headers[name] = value;
  }
  const sent = options.sentBody ?? body;
  const response = await fetch(base + path, { method, headers, ...(sent.length > 0 ? { body: sent } : {}) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

function freshNonce(): string {
  return `n_${randomUUID().replaceAll('-', '')}`;
}

describe('signed-request middleware over real HTTP', () => {
  let base: string;
  beforeAll(async () => {
    base = await startApp();
  });

  it('lets a signed request through and records who it is', async () => {
    const response = await send(base);
    expect(response).toEqual({
      status: 200,
      body: {
        auth: { tenantId: 'acme', role: 'MEMBER', actorId: 'signed:acme', method: 'signature' },
        principal: { subject: 'signed:acme', tenantId: 'acme', role: 'MEMBER', authMethod: 'signature' },
        tenantId: 'acme',
        url: '/graphql?trace=1',
        body: { query: '{ listPolicies { id } }' },
        parsedUpstream: null,
      },
    });
  });

  it('accepts a higher role than required, and GET requests without a body', async () => {
    const response = await send(base, { method: 'GET', path: '/graphql?query=%7B__typename%7D', role: 'OWNER' });
    expect(response.status).toBe(200);
    expect(response.body.auth.role).toBe('OWNER');
    expect(response.body.body).toBeNull();
  });

  it('accepts both secrets during rotation', async () => {
    expect((await send(base, { secret: OLD_SECRET })).status).toBe(200);
    expect((await send(base, { secret: NEW_SECRET })).status).toBe(200);
  });

  it('signs over the exact bytes, including non-ASCII text', async () => {
    const response = await send(base, { body: '{"query":"{ policy(name: \\"Prüfung ✓\\") { id } }"}' });
    expect(response.status).toBe(200);
    expect(response.body.body.query).toContain('Prüfung ✓');
  });

  it.each([
    ['missing', { 'X-Tenant-Id': null }, 'ERR_TENANT_HEADER_MISSING', 'missing X-Tenant-Id header'],
    ['empty', { 'X-Tenant-Id': '' }, 'ERR_TENANT_HEADER_MISSING', 'missing X-Tenant-Id header'],
    ['too long', { 'X-Tenant-Id': 'a'.repeat(65) }, 'ERR_TENANT_HEADER_INVALID', 'X-Tenant-Id must be 1-64 characters'],
    ['with a forbidden character', { 'X-Tenant-Id': 'acme.corp' }, 'ERR_TENANT_HEADER_INVALID', 'X-Tenant-Id must be 1-64 characters'],
  ])('answers 400 for a tenant header that is %s', async (_case, override, code, message) => {
    const response = await send(base, { override });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ result: null, code });
    expect(response.body.error).toContain(message);
  });

  it('answers 400 for a repeated tenant header', async () => {
    const headers = new Headers(signRequest({ method: 'GET', pathWithQuery: '/graphql', tenantId: 'acme', role: 'MEMBER', secret: NEW_SECRET }));
    headers.append('X-Tenant-Id', 'globex');
    const response = await fetch(`${base}/graphql`, { headers });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'ERR_TENANT_HEADER_INVALID' });
  });

  it.each([
    ['X-Policy-Signature'],
    ['X-Policy-Timestamp'],
    ['X-Policy-Nonce'],
  ])('answers 403 when %s is missing', async (header) => {
    const response = await send(base, { override: { [header]: null } });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'ERR_AUTH_SIGNATURE_MISSING', error: `request is not signed: missing ${header}` });
  });

  it('answers 403 for a role below the endpoint minimum, even when correctly signed', async () => {
    const response = await send(base, { role: 'VIEWER' });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'ERR_AUTH_ROLE_INSUFFICIENT' });
    expect(response.body.error).toBe('role VIEWER is not allowed here: this endpoint requires MEMBER or higher');
  });

  it('answers 403 for an unknown or missing role', async () => {
    const unknown = await send(base, { role: 'ROOT' });
    expect(unknown.status).toBe(403);
    expect(unknown.body).toMatchObject({ code: 'ERR_AUTH_ROLE_INSUFFICIENT' });
    expect(unknown.body.error).toContain('unknown role `ROOT`');
    const missing = await send(base, { override: { 'X-User-Role': null } });
    expect(missing.status).toBe(403);
    expect(missing.body.error).toContain('missing X-User-Role header');
  });

  it('answers 403 when the role header is raised after signing', async () => {
    const response = await send(base, { role: 'MEMBER', override: { 'X-User-Role': 'OWNER' } });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'ERR_AUTH_SIGNATURE_INVALID', error: 'request signature does not match' });
  });

  it('answers 403 for a wrong secret and for an unknown tenant, alike', async () => {
    const wrong = await send(base, { secret: OTHER_SECRET });
    const unknown = await send(base, { tenantId: 'no-such-tenant', secret: OTHER_SECRET });
    const crossTenant = await send(base, { tenantId: 'globex', secret: NEW_SECRET });
    for (const response of [wrong, unknown, crossTenant]) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({
        result: null,
        error: 'request signature does not match',
        executionTimeMs: 0,
        code: 'ERR_AUTH_SIGNATURE_INVALID',
      });
    }
  });

  it('answers 403 for a tampered body or path', async () => {
    const headers = signRequest({ method: 'POST', pathWithQuery: '/graphql', body: '{"a":1}', tenantId: 'acme', role: 'MEMBER', secret: NEW_SECRET });
    const tamperedBody = await fetch(`${base}/graphql`, { method: 'POST', headers, body: '{"a":2}' });
    expect(tamperedBody.status).toBe(403);
    expect(await tamperedBody.json()).toMatchObject({ code: 'ERR_AUTH_SIGNATURE_INVALID' });
    const tamperedPath = await fetch(`${base}/graphql?x=1`, { method: 'POST', headers, body: '{"a":1}' });
    expect(tamperedPath.status).toBe(403);
    expect(await tamperedPath.json()).toMatchObject({ code: 'ERR_AUTH_SIGNATURE_INVALID' });
  });

  it('answers 403 for stale and future timestamps', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 301 - 5, now + 301 + 5]) {
      const response = await send(base, { timestamp });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('ERR_AUTH_TIMESTAMP_STALE');
      expect(response.body.error).toContain('outside the accepted window of ±300 s');
    }
  });

  it('answers 403 for a malformed nonce or signature header', async () => {
    const nonce = await send(base, { override: { 'X-Policy-Nonce': 'too-short' } });
    expect(nonce.status).toBe(403);
    expect(nonce.body).toMatchObject({ code: 'ERR_AUTH_SIGNATURE_INVALID' });
    expect(nonce.body.error).toContain('X-Policy-Nonce must be 16 to 128 characters');
    const signature = await send(base, { override: { 'X-Policy-Signature': 'sha256=abc' } });
    expect(signature.status).toBe(403);
    expect(signature.body.error).toContain('X-Policy-Signature must be `v1=`');
  });

  it('accepts a nonce once and answers 403 on replay', async () => {
    const nonce = freshNonce();
    const timestamp = Math.floor(Date.now() / 1000);
    expect((await send(base, { nonce, timestamp })).status).toBe(200);
    const replay = await send(base, { nonce, timestamp });
    expect(replay.status).toBe(403);
    expect(replay.body).toMatchObject({ code: 'ERR_AUTH_NONCE_REUSED' });
    expect(replay.body.error).toContain('already used');
  });

  it('refuses a nonce as reused for as long as its future-dated timestamp stays acceptable', async () => {
    const windowSeconds = 300;
    let clock = Math.floor(Date.now() / 1000);
    const moved = await startApp({ windowSeconds, nowSeconds: () => clock });
    const nonce = freshNonce();
    const timestamp = clock + windowSeconds; // the future edge of the window
    expect((await send(moved, { nonce, timestamp })).status).toBe(200);

    // Redis must keep the nonce until server time passes timestamp + window, the last second in
    // which the timestamp is still accepted, whatever fraction of a second the claim happened in.
    const lastAcceptedMs = (timestamp + windowSeconds + 1) * 1000;
    const expiresAtMs = Date.now() + (await redis.pttl(`${prefix}acme:${nonce}`));
    expect(expiresAtMs).toBeGreaterThan(lastAcceptedMs);

    // Every second the timestamp is acceptable, a replay is refused as a replay.
    for (const at of [clock, clock + windowSeconds, clock + 2 * windowSeconds]) {
      clock = at;
      const replay = await send(moved, { nonce, timestamp });
      expect(replay.status).toBe(403);
      expect(replay.body.code).toBe('ERR_AUTH_NONCE_REUSED');
    }
    clock += 1;
    expect((await send(moved, { nonce, timestamp })).body.code).toBe('ERR_AUTH_TIMESTAMP_STALE');
  });

  it('keeps nonces per tenant', async () => {
    const nonce = freshNonce();
    expect((await send(base, { nonce })).status).toBe(200);
    expect((await send(base, { nonce, tenantId: 'globex', secret: OTHER_SECRET })).status).toBe(200);
  });

  it('does not let a forged request burn a nonce', async () => {
    const nonce = freshNonce();
    expect((await send(base, { nonce, secret: 'forged-secret' })).status).toBe(403);
    expect((await send(base, { nonce, role: 'VIEWER' })).status).toBe(403);
    expect((await send(base, { nonce, timestamp: 1_000 })).status).toBe(403);
    expect((await send(base, { nonce })).status).toBe(200);
  });
});

describe('signed-request middleware configuration', () => {
  it('fails loudly behind a parser that kept only the decoded text: the signature covers the bytes received', async () => {
    const base = await startApp({ upstream: [koaBody({ includeUnparsed: true })] });
    const response = await send(base, { body: '{ "query" : "{ listPolicies { id } }", "n": "ü" }' });
    expect(response.status).toBe(500);
  });

  it('fails loudly, never on an empty body, when a parser consumed the body without keeping it', async () => {
    const base = await startApp({ upstream: [koaBody()] });
    const response = await send(base);
    expect(response.status).toBe(500);
  });

  it('refuses an encoded body with 400 instead of hashing bytes that something may inflate', async () => {
    const base = await startApp();
    const gzip = await send(base, { extra: { 'content-encoding': 'gzip' } });
    expect(gzip.status).toBe(400);
    expect(gzip.body).toMatchObject({ code: 'ERR_REQUEST_ENCODING_UNSUPPORTED' });
    expect((await send(base, { extra: { 'content-encoding': 'identity' } })).status).toBe(200);
  });

  it('answers 413 for a body over the limit', async () => {
    const base = await startApp({ bodyLimitBytes: 64 });
    const response = await send(base, { body: JSON.stringify({ query: 'x'.repeat(100) }) });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 'ERR_REQUEST_BODY_TOO_LARGE' });
  });

  it('enforces the configured minimum role and window', async () => {
    const base = await startApp({ minRole: 'ADMIN', windowSeconds: 30 });
    expect((await send(base, { role: 'MEMBER' })).body.code).toBe('ERR_AUTH_ROLE_INSUFFICIENT');
    expect((await send(base, { role: 'ADMIN' })).status).toBe(200);
    const stale = await send(base, { role: 'ADMIN', timestamp: Math.floor(Date.now() / 1000) - 60 });
    expect(stale.body.code).toBe('ERR_AUTH_TIMESTAMP_STALE');
  });

  it('lets an accepted bearer token stand in for the signature, and only then', async () => {
    const seen: string[] = [];
    const base = await startApp({
      allowBearer: async (ctx, minRole) => {
        seen.push(minRole);
        if (ctx.get('authorization') !== 'Bearer good-token') return false;
        ctx.state.principal = { subject: 'user-1', tenantId: ctx.get('x-tenant-id'), role: 'MEMBER', authMethod: 'bearer' };
        return true;
      },
    });
    const good = await fetch(`${base}/api/v1/policies/evaluate-source`, {
      method: 'POST',
      headers: { authorization: 'Bearer good-token', 'x-tenant-id': 'acme', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(good.status).toBe(200);
    const goodBody = (await good.json()) as Record<string, unknown>;
    expect(goodBody.principal).toEqual({ subject: 'user-1', tenantId: 'acme', role: 'MEMBER', authMethod: 'bearer' });
    expect(goodBody.auth).toBeUndefined();
    expect(seen).toEqual(['MEMBER']);

    const bad = await fetch(`${base}/api/v1/policies/evaluate-source`, {
      method: 'POST',
      headers: { authorization: 'Bearer bad-token', 'x-tenant-id': 'acme' },
    });
    expect(bad.status).toBe(403);
    expect(await bad.json()).toMatchObject({ code: 'ERR_AUTH_SIGNATURE_MISSING' });

    const noTenant = await fetch(`${base}/api/v1/policies/evaluate-source`, { headers: { authorization: 'Bearer good-token' } });
    expect(noTenant.status).toBe(400);
    expect(seen).toHaveLength(2);
  });

  it('refuses an unknown minimum role at construction', () => {
    expect(() => createSignedRequestAuth({ tenants: store.tenants, nonceGuard, minRole: 'ROOT' as 'ADMIN' })).toThrow(/ROOT/);
  });

});

describe('signed-request middleware inside the service HTTP stack', () => {
  let base: string;
  beforeAll(async () => {
    base = await startApp({
      upstream: [errorHandler(createLogger({ level: 'silent' })) as Middleware, jsonBody({ limitBytes: 4096 }) as Middleware],
    });
  });

  it('verifies requests whose JSON the service body parser already read', async () => {
    const response = await send(base, { body: '{"source":"règle","functionName":"f","context":{"n":1}}' });
    expect(response.status).toBe(200);
    expect(response.body.parsedUpstream).toEqual({ source: 'règle', functionName: 'f', context: { n: 1 } });
    expect(response.body.principal).toMatchObject({ tenantId: 'acme', authMethod: 'signature' });
  });

  it('covers exactly the bytes received: a byte order mark or a byte the decoder would replace, added after signing, refuses', async () => {
    const signed = Buffer.from('{"query":"{ listPolicies { id } }","n":"\uFFFD"}', 'utf8');
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const withBom = await send(base, { bodyBytes: signed, sentBody: Buffer.concat([bom, signed]) });
    expect([withBom.status, withBom.body.code]).toEqual([403, 'ERR_AUTH_SIGNATURE_INVALID']);
    // U+FFFD is EF BF BD; a lone 0xFF decodes to it, so the decoded text would re-encode to the signed bytes.
    const replacement = signed.indexOf(Buffer.from([0xef, 0xbf, 0xbd]));
    const invalid = Buffer.concat([signed.subarray(0, replacement), Buffer.from([0xff]), signed.subarray(replacement + 3)]);
    const withInvalid = await send(base, { bodyBytes: signed, sentBody: invalid });
    expect([withInvalid.status, withInvalid.body.code]).toEqual([403, 'ERR_AUTH_SIGNATURE_INVALID']);
    // The same bytes, signed as sent, are accepted: a byte order mark is allowed, if signed.
    const signedWithBom = await send(base, { bodyBytes: Buffer.concat([bom, signed]) });
    expect(signedWithBom.status).toBe(200);
    expect(signedWithBom.body.parsedUpstream).toEqual({ query: '{ listPolicies { id } }', n: '\uFFFD' });
    expect((await send(base, { bodyBytes: signed })).status).toBe(200);
  });

  it('verifies requests the body parser leaves alone', async () => {
    expect((await send(base, { method: 'GET', path: '/graphql?query=%7B__typename%7D' })).status).toBe(200);
  });

  it('answers in the service envelope with the stable codes', async () => {
    const tampered = await send(base, { override: { 'X-User-Role': 'ADMIN' } });
    expect(tampered).toEqual({
      status: 403,
      body: { result: null, error: 'request signature does not match', executionTimeMs: 0, code: 'ERR_AUTH_SIGNATURE_INVALID' },
    });
    const noTenant = await send(base, { override: { 'X-Tenant-Id': null } });
    expect(noTenant).toEqual({
      status: 400,
      body: { result: null, error: 'missing X-Tenant-Id header', executionTimeMs: 0, code: 'ERR_TENANT_HEADER_MISSING' },
    });
  });
});
