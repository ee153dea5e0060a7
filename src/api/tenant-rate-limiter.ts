import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

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
  const decide = (res: RateLimiterRes, allowed: boolean): RateLimitDecision => ({
    allowed,
    limit: options.points,
    remaining: Math.max(0, res.remainingPoints),
    windowSeconds: options.windowSeconds,
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });
  return {
    points: options.points,
    windowSeconds: options.windowSeconds,
    async consume(tenantId) {
      try {
        return decide(await limiter.consume(tenantId), true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decide(rejection, false);
        throw rejection;
      }
    },
  };
}
