import type { RedisClient } from '../../jobs/index.js';

export interface TenantSlots {
  /** Takes one of the tenant's slots for `holder` until `forMs` from now; false when all are taken. */
  take(tenantId: string, holder: string, forMs: number): Promise<boolean>;
  give(tenantId: string, holder: string): Promise<void>;
}

// KEYS: the tenant's holders (sorted set, by when each hold ends). ARGV: holder, now, until, slots.
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) - tonumber(ARGV[2]))
return 1`;

/**
 * At most `slots` deliveries of one tenant in flight across every worker process: each attempt
 * holds a slot in Redis (one Lua script per change), and a hold ends by itself after its time,
 * so a worker that died in an attempt frees its slot soon after.
 */
export function createTenantSlots(redis: RedisClient, keyBase: string, slots: number): TenantSlots {
  const keyOf = (tenantId: string) => `${keyBase}:slots:${tenantId}`;
  return {
    async take(tenantId, holder, forMs) {
      const at = Date.now();
      return Number(await redis.eval(TAKE, 1, keyOf(tenantId), holder, String(at), String(at + forMs), String(slots))) === 1;
    },
    async give(tenantId, holder) {
      await redis.zrem(keyOf(tenantId), holder);
    },
  };
}
