import { DependencyUnavailableError } from '../../errors/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext, AppMiddleware } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import type { RateLimitDecision, TenantRateLimiter } from '../tenant-rate-limiter.js';

const POLICY_NAME = '"tenant"';

/** Header fields of draft-ietf-httpapi-ratelimit-headers (structured field syntax). */
function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'RateLimit-Policy': `${POLICY_NAME};q=${decision.limit};w=${decision.windowSeconds}`,
    RateLimit: `${POLICY_NAME};r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

/** Points a request spends: 1 for most, one per evaluation for a batch, one per 100 records asked for by an audit list. */
export type RateLimitCost = (ctx: AppContext) => number;

/**
 * Spends the caller's tenant quota: one point per request, or `cost(ctx)` points (read once the
 * body is parsed, e.g. one per batch item), counted as `unit` says in a 429's message. A request
 * whose points do not fit what is left is a 429 and spends nothing.
 */
export function rateLimit(limiter: TenantRateLimiter, cost?: RateLimitCost, unit = 'one per evaluation'): AppMiddleware {
  return async (ctx, next) => {
    const tenantId = ctx.state.tenantId;
    if (tenantId === undefined) throw new Error('rate limiting runs before the tenant header is read');
    const points = cost ? Math.max(1, Math.floor(cost(ctx))) : 1;
    let decision: RateLimitDecision;
    try {
      decision = await limiter.consume(tenantId, points);
    } catch (error) {
      // The limiter rejects only when Redis does not answer: nothing was decided, so the client retries.
      throw new DependencyUnavailableError('Redis (rate limits)', { cause: error });
    }
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      const wait = decision.resetSeconds;
      const need =
        points === 1
          ? ''
          : points > decision.limit
            ? `; this request needs ${points} points (${unit}), more than the whole quota: split it`
            : `; this request needs ${points} points (${unit}) and ${decision.remaining} remain`;
      throw new ApiError(
        429,
        ApiErrorCode.RATE_LIMIT_EXCEEDED,
        `rate limit of ${decision.limit} points per ${decision.windowSeconds} s exceeded for tenant \`${tenantId}\`${need}; retry in ${wait} s`,
        { ...headers, 'Retry-After': String(wait) },
      );
    }
    ctx.set(headers);
    await next();
  };
}
