import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { createTurnBatch } from '../auth/index.js';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  windowSeconds: number;
  /** Seconds until the quota refills (at least 1). */
  resetSeconds: number;
}

export interface TenantRateLimiter {
  readonly points: number;
  readonly windowSeconds: number;
  /** Spends one point of the tenant's quota. Rejects only when Redis fails. */
  consume(tenantId: string): Promise<RateLimitDecision>;
}

export interface TenantRateLimiterOptions {
  redis: Redis;
  points: number;
  windowSeconds: number;
  /** Redis key prefix; tests use a unique one. */
  keyPrefix: string;
}

/** Fixed window per tenant in Redis, so every API process shares one quota. */
export function createTenantRateLimiter(options: TenantRateLimiterOptions): TenantRateLimiter {
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.windowSeconds,
    // Fail the request rather than queue commands while Redis is away.
    rejectIfRedisNotReady: true,
  });

  /** The decisions of `count` requests of one tenant, spent as one consumption of `count` points. */
  async function consumeTogether(tenantId: string, count: number): Promise<RateLimitDecision[]> {
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(tenantId, count);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
    }
    // The window's counter went from `before` to `before + count`: request i holds point before + i + 1,
    // exactly as if the requests had consumed one point each, in order.
    const before = res.consumedPoints - count;
    const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return Array.from({ length: count }, (_, i) => {
      const spent = before + i + 1;
      return {
        allowed: spent <= options.points,
        limit: options.points,
        remaining: Math.max(0, options.points - spent),
        windowSeconds: options.windowSeconds,
        resetSeconds,
      };
    });
  }

  // Requests that arrive together spend their points in one Redis call per tenant.
  const consume = createTurnBatch(async (tenantIds: string[]): Promise<RateLimitDecision[]> => {
    const positions = new Map<string, number[]>();
    tenantIds.forEach((tenantId, index) => {
      const list = positions.get(tenantId);
      if (list === undefined) positions.set(tenantId, [index]);
      else list.push(index);
    });
    const decisions = new Array<RateLimitDecision>(tenantIds.length);
    await Promise.all(
      [...positions].map(async ([tenantId, indexes]) => {
        const ordered = await consumeTogether(tenantId, indexes.length);
        indexes.forEach((index, i) => (decisions[index] = ordered[i]!));
      }),
    );
    return decisions;
  });

  return { points: options.points, windowSeconds: options.windowSeconds, consume };
}
