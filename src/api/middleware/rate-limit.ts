import { ApiError } from '../api-error.js';
import type { AppMiddleware } from '../app-types.js';
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

/** Spends one point of the caller's tenant quota per request. */
export function rateLimit(limiter: TenantRateLimiter): AppMiddleware {
  return async (ctx, next) => {
    const tenantId = ctx.state.tenantId;
    if (tenantId === undefined) throw new Error('rate limiting runs before the tenant header is read');
    const decision = await limiter.consume(tenantId);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      const wait = decision.resetSeconds;
      throw new ApiError(
        429,
        ApiErrorCode.RATE_LIMIT_EXCEEDED,
        `rate limit of ${decision.limit} requests per ${decision.windowSeconds} s exceeded for tenant \`${tenantId}\`; retry in ${wait} s`,
        { ...headers, 'Retry-After': String(wait) },
      );
    }
    ctx.set(headers);
    await next();
  };
}
