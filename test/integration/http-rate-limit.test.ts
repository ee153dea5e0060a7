import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, startHarness, type Harness } from './http-support/http-harness.js';

/** A request that spends one point (an audit list of up to 100 records). */
const ONE_POINT = '/api/v1/audit?limit=100';

describe('per-tenant rate limit over HTTP (real Redis)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ rateLimitPoints: 3, rateLimitWindowSeconds: 120 });
  });
  afterAll(async () => {
    await h.close();
  });

  it('announces the policy and the remaining quota on every response', async () => {
    const response = await h.get(ONE_POINT, { tenant: 'headers-tenant' });
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-policy')).toBe('"tenant";q=3;w=120');
    expect(response.headers.get('ratelimit')).toMatch(/^"tenant";r=2;t=(\d+)$/);
  });

  it('answers 429 with Retry-After in seconds and the wait in the message once the quota is spent', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await h.get(ONE_POINT, { tenant: 'busy' })).status);
    expect(statuses).toEqual([200, 200, 200]);

    const limited = await h.get(ONE_POINT, { tenant: 'busy' });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(limited.headers.get('ratelimit')).toBe(`"tenant";r=0;t=${retryAfter}`);
    const body = await envelope(limited);
    expect(body.code).toBe('ERR_RATE_LIMIT_EXCEEDED');
    expect(body.error).toContain(`retry in ${retryAfter} s`);
  });

  it('keeps tenants apart', async () => {
    for (let i = 0; i < 4; i += 1) await h.get(ONE_POINT, { tenant: 'noisy' });
    expect((await h.get(ONE_POINT, { tenant: 'noisy' })).status).toBe(429);
    expect((await h.get(ONE_POINT, { tenant: 'quiet' })).status).toBe(200);
  });

  it('spends no quota on requests that fail authentication', async () => {
    for (let i = 0; i < 5; i += 1) {
      const response = await h.request(ONE_POINT, { headers: { 'x-tenant-id': 'victim', authorization: 'Bearer x.y.z' } });
      expect(response.status).toBe(401);
    }
    expect((await h.get(ONE_POINT, { tenant: 'victim' })).status).toBe(200);
  });

  it('keeps the quota in Redis under the configured prefix', async () => {
    await h.get(ONE_POINT, { tenant: 'stored' });
    const keys = await h.redis.keys(`${h.keyPrefix}*stored`);
    expect(keys).toHaveLength(1);
  });
});
