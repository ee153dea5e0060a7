import type { RedisClient } from '../../jobs/index.js';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { DependencyUnavailableError } from '../../errors/index.js';
import { ApiError } from '../api-error.js';
import { ApiErrorCode } from '../error-codes.js';

/** Failed sign-ins one client address may make per window before its attempts are refused. */
export const LOGIN_FAILURES_PER_ADDRESS = 10;
export const LOGIN_FAILURE_WINDOW_SECONDS = 60;

export interface LoginThrottle {
  /**
   * Counts a sign-in attempt from `address` as failed, before its token is looked at; refused with
   * 429 (and `Retry-After`) once the address has LOGIN_FAILURES_PER_ADDRESS failures in the window.
   * Counting first means concurrent guesses cannot slip past the count.
   */
  take(address: string): Promise<void>;
  /** The attempt succeeded: its count is given back, so only failures count. Never rejects. */
  giveBack(address: string): Promise<void>;
}

export interface LoginThrottleOptions {
  redis: RedisClient;
  /** Redis key prefix (`<REDIS_KEY_PREFIX>:login-failures`); tests use a unique one. */
  keyPrefix: string;
}

/** A fixed window per client address in Redis, shared by every API process. */
export function createLoginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: options.keyPrefix,
    points: LOGIN_FAILURES_PER_ADDRESS,
    duration: LOGIN_FAILURE_WINDOW_SECONDS,
    rejectIfRedisNotReady: true,
  });
  const redisDown = (cause: unknown) => new DependencyUnavailableError('Redis (sign-in throttling)', { cause });

  return {
    async take(address) {
      try {
        await limiter.consume(address, 1);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw new DependencyUnavailableError('Redis (sign-in throttling)', { cause: rejection });
        const wait = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        throw new ApiError(
          429,
          ApiErrorCode.RATE_LIMIT_EXCEEDED,
          `too many failed sign-ins from this address (${LOGIN_FAILURES_PER_ADDRESS} per ${LOGIN_FAILURE_WINDOW_SECONDS} s); retry in ${wait} s`,
          { 'Retry-After': String(wait) },
        );
      }
    },
    async giveBack(address) {
      // Redis failing now only leaves this sign-in counted as a failure.
      await limiter.reward(address, 1).catch(() => undefined);
    },
  };
}
