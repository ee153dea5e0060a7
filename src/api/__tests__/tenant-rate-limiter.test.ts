import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantRateLimiter } from '../tenant-rate-limiter.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const keyPrefix = `test-${randomUUID()}:rate-limit`;
let redis: Redis;

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  // The limiter refuses to queue commands on a connection that is not ready yet.
  await redis.ping();
});

afterAll(async () => {
  const keys = await redis.keys(`${keyPrefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('tenant rate limiter (real Redis)', () => {
  it('decides requests that arrive together exactly as if each had spent its point in turn', async () => {
    const limiter = createTenantRateLimiter({ redis, points: 5, windowSeconds: 60, keyPrefix });
    const tenants = ['a', 'a', 'b', 'a', 'a', 'a', 'a', 'b', 'a', 'a'];
    const decisions = await Promise.all(tenants.map((tenant) => limiter.consume(tenant)));
    const ofA = decisions.filter((_, i) => tenants[i] === 'a');
    expect(ofA.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    expect(ofA.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0]);
    const ofB = decisions.filter((_, i) => tenants[i] === 'b');
    expect(ofB.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 4],
      [true, 3],
    ]);
    for (const decision of decisions) {
      expect(decision).toMatchObject({ limit: 5, windowSeconds: 60 });
      expect(decision.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(decision.resetSeconds).toBeLessThanOrEqual(60);
    }
    await expect(limiter.consume('a')).resolves.toMatchObject({ allowed: false, remaining: 0 });
    await expect(limiter.consume('b')).resolves.toMatchObject({ allowed: true, remaining: 2 });
  });

  it('shares one quota between limiters (API processes) on the same keys', async () => {
    const one = createTenantRateLimiter({ redis, points: 3, windowSeconds: 60, keyPrefix });
    const other = createTenantRateLimiter({ redis, points: 3, windowSeconds: 60, keyPrefix });
    const decisions = await Promise.all([one.consume('shared'), other.consume('shared'), one.consume('shared'), other.consume('shared')]);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3);
  });

  it('charges several points at once, all or nothing, in one consumption per tenant and turn', async () => {
    const limiter = createTenantRateLimiter({ redis, points: 10, windowSeconds: 60, keyPrefix });
    // One turn: 4, 1, 7 (does not fit after 5: refused, spends nothing), 5 (fits exactly), 1 (nothing left).
    const decisions = await Promise.all([4, 1, 7, 5, 1].map((points) => limiter.consume('multi', points)));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 6],
      [true, 5],
      [false, 5],
      [true, 0],
      [false, 0],
    ]);
    expect(Number(await redis.get(`${keyPrefix}:multi`))).toBeGreaterThanOrEqual(10);
    await expect(limiter.consume('multi')).resolves.toMatchObject({ allowed: false, remaining: 0 });
  });

  it('gives back the points of a request that does not fit, so the rest of the quota stays usable', async () => {
    const limiter = createTenantRateLimiter({ redis, points: 10, windowSeconds: 60, keyPrefix });
    await expect(limiter.consume('refund', 3)).resolves.toMatchObject({ allowed: true, remaining: 7 });
    await expect(limiter.consume('refund', 8)).resolves.toMatchObject({ allowed: false, remaining: 7 });
    expect(Number(await redis.get(`${keyPrefix}:refund`))).toBe(3);
    await expect(limiter.consume('refund', 11)).resolves.toMatchObject({ allowed: false, remaining: 7 });
    await expect(limiter.consume('refund', 7)).resolves.toMatchObject({ allowed: true, remaining: 0 });
  });

  it('refuses a point count that is not a whole number of at least 1', async () => {
    const limiter = createTenantRateLimiter({ redis, points: 10, windowSeconds: 60, keyPrefix });
    await expect(limiter.consume('bad', 0)).rejects.toThrow(/points/);
    await expect(limiter.consume('bad', 1.5)).rejects.toThrow(/points/);
  });
});
