import type { RedisClient } from '../../jobs/index.js';
import type { RollupVersionKey } from '../../rollups/index.js';

/**
 * Where each tenant's next detection round starts: after the last version the previous round
 * assessed, when that round left versions over (its budget was spent). Kept in Redis so the rounds
 * go round whichever worker takes them. Losing it (Redis lost its data, or two days without a
 * round) only starts the tenant's rotation again from its first version.
 */
export interface DetectionRotation {
  startAfter(tenantId: string): Promise<RollupVersionKey | null>;
  save(tenantId: string, after: RollupVersionKey | null): Promise<void>;
}

const KEEP_SECONDS = 2 * 24 * 3600;

function isVersionKey(value: unknown): value is RollupVersionKey {
  const key = value as Partial<RollupVersionKey> | null;
  return (
    key !== null &&
    typeof key === 'object' &&
    typeof key.policyModule === 'string' &&
    typeof key.policyFunction === 'string' &&
    Number.isSafeInteger(key.version)
  );
}

export function createDetectionRotation(redis: RedisClient, prefix: string): DetectionRotation {
  const keyOf = (tenantId: string) => `${prefix}:anomaly-detect:rotation:${tenantId}`;
  return {
    async startAfter(tenantId) {
      const text = await redis.get(keyOf(tenantId));
      if (text === null) return null;
      try {
        const value: unknown = JSON.parse(text);
        return isVersionKey(value) ? { policyModule: value.policyModule, policyFunction: value.policyFunction, version: value.version } : null;
      } catch {
        return null;
      }
    },
    async save(tenantId, after) {
      if (after === null) await redis.del(keyOf(tenantId));
      else await redis.set(keyOf(tenantId), JSON.stringify(after), 'EX', KEEP_SECONDS);
    },
  };
}
