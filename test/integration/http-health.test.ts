import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unusedPort } from '../support/index.js';
import { envelope, startHarness, type Harness } from './http-support/http-harness.js';

describe('health endpoints', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('GET /healthz answers without tenant or token', async () => {
    const response = await h.request('/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('GET /version names the build from its package.json, without tenant or token', async () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    const response = await h.request('/version');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ service: manifest.name, version: manifest.version, api: ['v1'], node: process.version });
    expect((await h.request('/version', { method: 'POST' })).status).toBe(405);
  });

  it('GET /readyz is 200 when the store and Redis answer', async () => {
    const response = await h.request('/readyz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', checks: { store: 'ok', redis: 'ok' } });
  });
});

describe('readiness when Redis is down', () => {
  let h: Harness;
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis({ host: '127.0.0.1', port: await unusedPort(), lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
    redis.on('error', () => {});
    h = await startHarness({ redis });
  });
  afterAll(async () => {
    await h.close();
    redis.disconnect();
  });

  it('GET /readyz is 503 naming Redis', async () => {
    const response = await h.request('/readyz');
    expect(response.status).toBe(503);
    const body = (await envelope(response.clone())) as Record<string, unknown>;
    expect(body.code).toBe('ERR_HEALTH_NOT_READY');
    expect(body.error).toContain('redis');
    expect(body.checks).toEqual({ store: 'ok', redis: 'failed' });
    expect(h.logs.lines.find((l) => l.check === 'redis')).toMatchObject({ msg: 'readiness check failed' });
  });

  it('GET /healthz still answers: the process itself is alive', async () => {
    expect((await h.request('/healthz')).status).toBe(200);
  });
});

describe('readiness when the store fails', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      wrapStore: (store) => ({
        ...store,
        ping: async () => {
          throw new Error('database is locked');
        },
      }),
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('GET /readyz is 503 naming the store', async () => {
    const response = await h.request('/readyz');
    expect(response.status).toBe(503);
    const body = (await envelope(response)) as unknown as { error: string; checks: Record<string, string> };
    expect(body.checks).toEqual({ store: 'failed', redis: 'ok' });
    expect(body.error).toBe('not ready: store failed');
    expect(JSON.stringify(body)).not.toContain('database is locked');
    const logged = h.logs.lines.find((l) => l.check === 'store');
    expect((logged?.err as { message?: string } | undefined)?.message).toBe('database is locked');
  });
});
