import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, bindRoutes, declareRoutes } from '../../src/api/index.js';
import { readRawBody } from '../../src/auth/index.js';
import type { Store } from '../../src/store/index.js';
import { envelope, startHarness, type Harness } from './http-support/http-harness.js';

/** Routes that exist only here, to drive the error envelope through real HTTP. */
const probeRoutes = bindRoutes(
  declareRoutes<void>([
    {
      method: 'post',
      path: '/test/echo',
      auth: 'bearer',
      role: 'MEMBER',
      handle: async (ctx) => {
        ctx.body = { received: ctx.request.body, raw: (await readRawBody(ctx)).toString('utf8') };
      },
    },
    {
      method: 'post',
      path: '/test/conflict',
      auth: 'none',
      handle: (ctx) => {
        throw new ApiError(409, 'ERR_TEST_CONFLICT', `conflict on ${ctx.path}`);
      },
    },
    {
      method: 'get',
      path: '/test/crash',
      auth: 'none',
      handle: () => {
        throw new Error('secret internal detail');
      },
    },
  ]),
  undefined,
);

const failingList = (store: Store): Store => ({
  ...store,
  audit: {
    ...store.audit,
    list: async () => {
      throw new Error('disk on fire');
    },
  },
});

describe('error envelope over HTTP', () => {
  let h: Harness;
  let token: string;
  const auth = () => ({ authorization: `Bearer ${token}`, 'x-tenant-id': 'acme' });

  beforeAll(async () => {
    h = await startHarness({ routes: [probeRoutes], bodyLimitBytes: 1024 });
    token = await h.token({ roles: ['MEMBER'] });
  });
  afterAll(async () => {
    await h.close();
  });

  it('accepts a valid JSON body and keeps the bytes received', async () => {
    const response = await h.request('/test/echo', { headers: auth(), json: { a: [1, 2] } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: { a: [1, 2] }, raw: '{"a":[1,2]}' });
  });

  describe('400', () => {
    it('for malformed JSON', async () => {
      const response = await h.request('/test/echo', {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: '{"a": ',
      });
      expect(response.status).toBe(400);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_REQUEST_JSON_MALFORMED');
      expect(body.executionTimeMs).toBe(0);
    });

    it('for JSON that is not an object or array', async () => {
      const response = await h.request('/test/echo', {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: '"just a string"',
      });
      expect(response.status).toBe(400);
      expect((await envelope(response)).code).toBe('ERR_REQUEST_JSON_MALFORMED');
    });

    it('for a body that is not application/json', async () => {
      const response = await h.request('/test/echo', {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'text/plain' },
        body: '{"a":1}',
      });
      expect(response.status).toBe(400);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_REQUEST_CONTENT_TYPE_UNSUPPORTED');
      expect(body.error).toContain('text/plain');
    });

    it('for a missing tenant header', async () => {
      const response = await h.request('/test/echo', { headers: { authorization: `Bearer ${token}` }, json: {} });
      expect(response.status).toBe(400);
      expect((await envelope(response)).code).toBe('ERR_TENANT_HEADER_MISSING');
    });

    it.each(['has space', 'a'.repeat(65), 'semi;colon', 'dot.ted', 'acme, acme'])('for the ill-formed tenant header %j', async (tenant) => {
      const response = await h.request('/test/echo', { headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenant }, json: {} });
      expect(response.status).toBe(400);
      expect((await envelope(response)).code).toBe('ERR_TENANT_HEADER_INVALID');
    });

    it('checks the tenant header before the token', async () => {
      const response = await h.request('/api/v1/audit', { headers: { 'x-tenant-id': 'bad tenant' } });
      expect(response.status).toBe(400);
    });

    it('for bad query parameters', async () => {
      const response = await h.get('/api/v1/audit?limit=ten');
      expect(response.status).toBe(400);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_REQUEST_QUERY_INVALID');
      expect(body.error).toContain('limit');
    });
  });

  it('404 for an unknown route, with or without credentials', async () => {
    for (const response of [await h.request('/nowhere'), await h.get('/api/v1/nothing-here')]) {
      expect(response.status).toBe(404);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_ROUTE_NOT_FOUND');
    }
  });

  it('405 with Allow for a known path and a wrong method', async () => {
    const response = await h.request('/api/v1/audit', { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('GET');
    expect((await envelope(response)).code).toBe('ERR_ROUTE_METHOD_NOT_ALLOWED');
  });

  it('409 carries the code of the conflict', async () => {
    const response = await h.request('/test/conflict', { method: 'POST' });
    expect(response.status).toBe(409);
    expect(await envelope(response)).toEqual({
      result: null,
      error: 'conflict on /test/conflict',
      executionTimeMs: 0,
      code: 'ERR_TEST_CONFLICT',
    });
  });

  it('413 for a body over the limit', async () => {
    const response = await h.request('/test/echo', { headers: auth(), json: { pad: 'x'.repeat(2048) } });
    expect(response.status).toBe(413);
    const body = await envelope(response);
    expect(body.code).toBe('ERR_REQUEST_BODY_TOO_LARGE');
    expect(body.error).toContain('1024 bytes');
  });

  it('413 when the declared length is far over the limit', async () => {
    const response = await h.request('/test/echo', { headers: auth(), json: { pad: 'x'.repeat(200_000) } });
    expect(response.status).toBe(413);
    expect((await envelope(response)).code).toBe('ERR_REQUEST_BODY_TOO_LARGE');
  });

  it('413 for a chunked body that grows over the limit', async () => {
    const chunk = new TextEncoder().encode(`{"pad":"${'x'.repeat(600)}`);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk);
        controller.enqueue(new TextEncoder().encode(`${'y'.repeat(600)}"}`));
        controller.close();
      },
    });
    const response = await h.request('/test/echo', {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect((await envelope(response)).code).toBe('ERR_REQUEST_BODY_TOO_LARGE');
  });

  it('500 carries only a reference id, which is logged with the stack', async () => {
    const response = await h.request('/test/crash', { headers: { 'x-request-id': 'trace-500-a' } });
    expect(response.status).toBe(500);
    const body = await envelope(response);
    expect(body.code).toBe('ERR_INTERNAL_UNEXPECTED');
    const reference = /reference ([0-9a-f-]{36})$/.exec(body.error)?.[1];
    expect(reference).toBeDefined();
    expect(JSON.stringify(body)).not.toContain('secret internal detail');
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
    const line = h.logs.lines.find((l) => l.ref === reference);
    expect(line).toMatchObject({ level: 50, reqId: 'trace-500-a', msg: 'unexpected error' });
    expect((line!.err as { stack: string }).stack).toContain('secret internal detail');
  });

  it('echoes a sane X-Request-Id and replaces an unusable one', async () => {
    const kept = await h.request('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await h.request('/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const logged = h.logs.lines.find((l) => l.reqId === 'abc-123' && l.msg === 'request completed');
    expect(logged).toMatchObject({ method: 'GET', path: '/healthz', status: 200 });
    expect(logged).not.toHaveProperty('code');
  });

  it('logs the error code of every request answered with an error', async () => {
    await h.request('/api/v1/audit', { method: 'DELETE', headers: { 'x-request-id': 'coded-405' } });
    const logged = h.logs.lines.find((l) => l.reqId === 'coded-405' && l.msg === 'request completed');
    expect(logged).toMatchObject({ status: 405, code: 'ERR_ROUTE_METHOD_NOT_ALLOWED' });
  });
});

describe('500 from a failing store', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ wrapStore: failingList });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers 500 with a reference id and logs the cause', async () => {
    const response = await h.get('/api/v1/audit');
    expect(response.status).toBe(500);
    const body = await envelope(response);
    expect(body.error).not.toContain('disk on fire');
    const reference = /reference (\S+)$/.exec(body.error)?.[1];
    const line = h.logs.lines.find((l) => l.ref === reference);
    expect((line?.err as { message?: string } | undefined)?.message).toBe('disk on fire');
  });
});
