import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNonceGuard } from '../../../src/auth/nonce-guard.js';
import { createSignedRequestAuth, readRawBody } from '../../../src/auth/signed-request.middleware.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/index.js';
import { createPolicyClient, PolicyHttpError } from '../src/index.js';

// The client against the real signature middleware, nonce guard (Redis) and tenant store: proves
// that what the client signs is what the server verifies, and that retries never replay a nonce.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-${randomUUID()}:nonce:`;
const SECRET = 'e2e-secret-1';

let redis: Redis;
let store: SqliteStore;
let server: Server;
let baseUrl: string;
let throttleNext = 0;
let failNext = 0;
const seenNonces: string[] = [];

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  store = await openSqliteStore(':memory:');
  const createdAt = new Date().toISOString();
  await store.tenants.create({ tenantId: 'acme', createdAt }, { version: 1, secret: SECRET, createdAt });

  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const e = error as { status?: number; code?: string; expose?: boolean; message: string };
      ctx.status = e.expose && e.status ? e.status : 500;
      ctx.body = { result: null, error: e.expose ? e.message : 'internal error', executionTimeMs: 0, code: e.code ?? 'ERR_INTERNAL' };
    }
  });
  app.use(async (ctx, next) => {
    seenNonces.push(ctx.get('x-policy-nonce'));
    await next();
  });
  app.use(
    createSignedRequestAuth({
      tenants: store.tenants,
      nonceGuard: createNonceGuard({ redis, keyPrefix: prefix }),
      minRole: 'MEMBER',
    }),
  );
  app.use(async (ctx) => {
    // Behind authentication, as a rate limiter or a failing dependency would be.
    if (throttleNext > 0) {
      throttleNext -= 1;
      ctx.status = 429;
      ctx.set('Retry-After', '1');
      ctx.body = { result: null, error: 'rate limit exceeded: retry in 1 s', executionTimeMs: 0, code: 'ERR_RATE_LIMITED' };
      return;
    }
    if (failNext > 0) {
      failNext -= 1;
      ctx.status = 500;
      ctx.body = { result: null, error: 'internal error (ref test)', executionTimeMs: 0, code: 'ERR_INTERNAL' };
      return;
    }
    const body = JSON.parse((await readRawBody(ctx)).toString('utf8')) as { functionName: string; context: { amount: number } };
    ctx.body =
      body.functionName === 'approve'
        ? { result: body.context.amount < 100, error: null, executionTimeMs: 1 }
        : { result: null, error: `function \`${body.functionName}\` not found`, executionTimeMs: 0 };
  });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await store.close();
});

const noWait = async () => {};

describe('policy client against the signed-request middleware', () => {
  it('is accepted, call after call, and separates evaluation failures from successes', async () => {
    const client = createPolicyClient({ baseUrl, tenantId: 'acme', role: 'MEMBER', secret: SECRET, sleep: noWait });
    const source = 'policy text';
    expect(await client.evaluateSource({ source, functionName: 'approve', context: { amount: 50 } })).toMatchObject({ ok: true, result: true });
    expect(await client.evaluateSource({ source, functionName: 'approve', context: { amount: 500 } })).toMatchObject({ ok: true, result: false });
    expect(await client.evaluateSource({ source, functionName: 'aprove', context: { amount: 5 } })).toMatchObject({
      ok: false,
      error: 'function `aprove` not found',
      status: 200,
    });
  });

  it('retries 429 and 500 with fresh nonces that the nonce guard accepts', async () => {
    const client = createPolicyClient({ baseUrl, tenantId: 'acme', role: 'MEMBER', secret: SECRET, sleep: noWait });
    const before = seenNonces.length;
    throttleNext = 1;
    failNext = 1;
    const outcome = await client.evaluateSource({ source: 'p', functionName: 'approve', context: { amount: 1 } });
    expect(outcome).toMatchObject({ ok: true, result: true, attempts: 3 });
    const nonces = seenNonces.slice(before);
    expect(nonces).toHaveLength(3);
    expect(new Set(nonces).size).toBe(3);
  });

  it('is refused once, without retrying, when its secret or role is wrong', async () => {
    const wrongSecret = createPolicyClient({ baseUrl, tenantId: 'acme', role: 'MEMBER', secret: 'not-the-secret', sleep: noWait });
    await expect(wrongSecret.evaluateSource({ source: 'p', functionName: 'approve' })).rejects.toMatchObject({
      status: 403,
      code: 'ERR_AUTH_SIGNATURE_INVALID',
      attempts: 1,
    });
    const viewer = createPolicyClient({ baseUrl, tenantId: 'acme', role: 'VIEWER', secret: SECRET, sleep: noWait });
    const error = await viewer.evaluateSource({ source: 'p', functionName: 'approve' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyHttpError);
    expect(error).toMatchObject({ status: 403, code: 'ERR_AUTH_ROLE_INSUFFICIENT', attempts: 1 });
  });

  it('is refused with 400 for an ill-formed tenant when sending unsigned', async () => {
    const client = createPolicyClient({ baseUrl, tenantId: 'acme corp', role: 'MEMBER', sleep: noWait });
    await expect(client.request('POST', '/api/v1/policies/evaluate-source', {})).rejects.toMatchObject({
      status: 400,
      code: 'ERR_TENANT_HEADER_INVALID',
      attempts: 1,
    });
  });
});
