import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNonceGuard, minimumNonceTtlSeconds, NONCE_TTL_MARGIN_SECONDS } from '../nonce-guard.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-${randomUUID()}:nonce:`;
let redis: Redis;

beforeAll(() => {
  redis = new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('nonce guard (real Redis)', () => {
  it('accepts a nonce once per tenant', async () => {
    const guard = createNonceGuard({ redis, keyPrefix: prefix });
    const nonce = `n_${randomUUID().replaceAll('-', '')}`;
    expect(await guard.claim('tenant-a', nonce)).toBe(true);
    expect(await guard.claim('tenant-a', nonce)).toBe(false);
    expect(await guard.claim('tenant-a', nonce)).toBe(false);
    expect(await guard.claim('tenant-b', nonce)).toBe(true);
  });

  it('lets exactly one of many concurrent claims win', async () => {
    const guard = createNonceGuard({ redis, keyPrefix: prefix });
    const nonce = `c_${randomUUID().replaceAll('-', '')}`;
    const results = await Promise.all(Array.from({ length: 20 }, () => guard.claim('tenant-a', nonce)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('claims more nonces in one turn than one script call takes, each exactly once', async () => {
    const guard = createNonceGuard({ redis, keyPrefix: prefix });
    const nonces = Array.from({ length: 2500 }, (_, i) => `m${i}_${randomUUID().replaceAll('-', '')}`);
    expect(new Set(await Promise.all(nonces.map((nonce) => guard.claim('tenant-a', nonce))))).toEqual(new Set([true]));
    const again = await Promise.all([...nonces.slice(0, 1200), `fresh_${randomUUID().replaceAll('-', '')}`].map((nonce) => guard.claim('tenant-a', nonce)));
    expect(again.filter(Boolean)).toHaveLength(1);
    expect(again.at(-1)).toBe(true);
  });

  it('shares memory across guards (API processes) with the same prefix', async () => {
    const nonce = `s_${randomUUID().replaceAll('-', '')}`;
    const other = new Redis(REDIS_URL);
    try {
      expect(await createNonceGuard({ redis, keyPrefix: prefix }).claim('tenant-a', nonce)).toBe(true);
      expect(await createNonceGuard({ redis: other, keyPrefix: prefix }).claim('tenant-a', nonce)).toBe(false);
    } finally {
      await other.quit();
    }
  });

  it('stores the key under the prefix with an expiry of twice the window plus the margin', async () => {
    const guard = createNonceGuard({ redis, keyPrefix: prefix, windowSeconds: 120 });
    const nonce = `t_${randomUUID().replaceAll('-', '')}`;
    await guard.claim('tenant-c', nonce);
    const ttl = await redis.ttl(`${prefix}tenant-c:${nonce}`);
    expect(minimumNonceTtlSeconds(120)).toBe(240 + NONCE_TTL_MARGIN_SECONDS);
    expect(ttl).toBeGreaterThan(240 + NONCE_TTL_MARGIN_SECONDS - 10);
    expect(ttl).toBeLessThanOrEqual(240 + NONCE_TTL_MARGIN_SECONDS);
  });

  it('forgets a nonce once its expiry has passed', async () => {
    const guard = createNonceGuard({ redis, keyPrefix: prefix, windowSeconds: 1 });
    const nonce = `e_${randomUUID().replaceAll('-', '')}`;
    expect(await guard.claim('tenant-a', nonce)).toBe(true);
    // Expire the key now instead of sleeping through the TTL.
    await redis.pexpire(`${prefix}tenant-a:${nonce}`, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await guard.claim('tenant-a', nonce)).toBe(true);
  });

  it('refuses a configuration that would let a replay outlive the nonce', () => {
    expect(() => createNonceGuard({ redis, windowSeconds: 300, ttlSeconds: 300 })).toThrow(/at least twice/);
    // Exactly two windows leaves the last second of a future-dated timestamp uncovered.
    expect(() => createNonceGuard({ redis, windowSeconds: 300, ttlSeconds: 600 })).toThrow(/660/);
    expect(() => createNonceGuard({ redis, windowSeconds: 0 })).toThrow(/window/);
    expect(() => createNonceGuard({ redis, windowSeconds: 300, ttlSeconds: 660 })).not.toThrow();
  });

  it('refuses malformed tenants and nonces instead of building odd keys', async () => {
    const guard = createNonceGuard({ redis, keyPrefix: prefix });
    await expect(guard.claim('tenant:a', 'a'.repeat(16))).rejects.toThrow(/tenant/);
    await expect(guard.claim('tenant-a', 'short')).rejects.toThrow(/nonce/);
    expect(await redis.keys(`${prefix}*short*`)).toEqual([]);
  });
});
