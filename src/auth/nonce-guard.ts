import type { Cluster, Redis } from 'ioredis';
import { isValidTenantId } from '../tenants/index.js';
import { DEFAULT_SIGNATURE_WINDOW_SECONDS, NONCE_PATTERN } from './request-signature.js';

/** Remembers signed-request nonces so that each is accepted once per tenant. */
export interface NonceGuard {
  /** True the first time a tenant presents the nonce within its lifetime, false on every reuse. */
  claim(tenantId: string, nonce: string): Promise<boolean>;
}

export interface NonceGuardOptions {
  redis: Redis | Cluster;
  /** Every key is `<keyPrefix><tenantId>:<nonce>`. */
  keyPrefix?: string;
  /** The timestamp window the signature check accepts (± seconds). */
  windowSeconds?: number;
  /**
   * How long a nonce is remembered. A timestamp is accepted from `ts - window` to `ts + window`,
   * so a nonce first seen at the early edge must survive two windows: anything shorter would let a
   * captured request be replayed before its timestamp goes stale. Defaults to 2 × window.
   */
  ttlSeconds?: number;
}

export const DEFAULT_NONCE_KEY_PREFIX = 'pe:nonce:';

export function createNonceGuard(options: NonceGuardOptions): NonceGuard {
  const windowSeconds = options.windowSeconds ?? DEFAULT_SIGNATURE_WINDOW_SECONDS;
  if (!Number.isInteger(windowSeconds) || windowSeconds <= 0) {
    throw new RangeError(`nonce guard window must be a positive whole number of seconds, got ${windowSeconds}`);
  }
  const ttlSeconds = options.ttlSeconds ?? 2 * windowSeconds;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 2 * windowSeconds) {
    throw new RangeError(
      `nonce ttl must be a whole number of seconds of at least twice the ${windowSeconds} s window, got ${ttlSeconds}`,
    );
  }
  const keyPrefix = options.keyPrefix ?? DEFAULT_NONCE_KEY_PREFIX;
  const { redis } = options;

  return {
    async claim(tenantId, nonce) {
      // The patterns keep `:` out of both parts, so no two (tenant, nonce) pairs share a key.
      if (!isValidTenantId(tenantId)) throw new RangeError('nonce guard: malformed tenant id');
      if (!NONCE_PATTERN.test(nonce)) throw new RangeError('nonce guard: malformed nonce');
      const reply = await redis.set(`${keyPrefix}${tenantId}:${nonce}`, '1', 'EX', ttlSeconds, 'NX');
      return reply === 'OK';
    },
  };
}
