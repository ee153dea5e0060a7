import type { RedisClient } from '../jobs/index.js';
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
  /**
   * Spends `points` (default 1, a whole number ≥ 1) of the tenant's quota, all or nothing: a
   * request refused because its points do not fit spends none of them. Rejects only when Redis fails.
   */
  consume(tenantId: string, points?: number): Promise<RateLimitDecision>;
}

export interface TenantRateLimiterOptions {
  redis: RedisClient;
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

  const refundScript = 'if redis.call("exists", KEYS[1]) == 1 then return redis.call("decrby", KEYS[1], ARGV[1]) end return 0';

  /**
   * The decisions of the requests of one tenant that arrived together (their points, in arrival
   * order), spent as one consumption of their sum. The counter went from `before` to `before + sum`;
   * the requests are decided in order against it exactly as if each had spent its points alone,
   * except that a request whose points do not fit spends nothing: the points of refused requests
   * are given back, so a batch too large for what is left does not use up the rest.
   */
  async function consumeTogether(tenantId: string, requested: readonly number[]): Promise<RateLimitDecision[]> {
    const total = requested.reduce((sum, points) => sum + points, 0);
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(tenantId, total);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
    }
    let spent = res.consumedPoints - total;
    let refused = 0;
    const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    const decisions = requested.map((points) => {
      const allowed = spent + points <= options.points;
      if (allowed) spent += points;
      else refused += points;
      return {
        allowed,
        limit: options.points,
        remaining: Math.max(0, options.points - spent),
        windowSeconds: options.windowSeconds,
        resetSeconds,
      };
    });
    // Only worth a round trip while quota is left: at or over the limit, the excess changes no decision.
    if (refused > 0 && spent < options.points) {
      await options.redis.eval(refundScript, 1, limiter.getKey(tenantId), refused);
    }
    return decisions;
  }

  // Requests that arrive together spend their points in one Redis call per tenant.
  const consumeBatch = createTurnBatch(async (requests: Array<{ tenantId: string; points: number }>): Promise<RateLimitDecision[]> => {
    const positions = new Map<string, number[]>();
    requests.forEach(({ tenantId }, index) => {
      const list = positions.get(tenantId);
      if (list === undefined) positions.set(tenantId, [index]);
      else list.push(index);
    });
    const decisions = new Array<RateLimitDecision>(requests.length);
    await Promise.all(
      [...positions].map(async ([tenantId, indexes]) => {
        const ordered = await consumeTogether(
          tenantId,
          indexes.map((index) => requests[index]!.points),
        );
        indexes.forEach((index, i) => (decisions[index] = ordered[i]!));
      }),
    );
    return decisions;
  });

  const consume = (tenantId: string, points = 1): Promise<RateLimitDecision> => {
    if (!Number.isSafeInteger(points) || points < 1) {
      return Promise.reject(new RangeError(`rate limit: points must be a whole number ≥ 1, got ${String(points)}`));
    }
    return consumeBatch({ tenantId, points });
  };

  return { points: options.points, windowSeconds: options.windowSeconds, consume };
}
