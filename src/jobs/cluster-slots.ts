import calculateSlot from 'cluster-key-slot';
import type { RedisClient } from './redis-connection.js';

/**
 * `{part}` on a cluster, `part` on one server: a Redis Cluster hashtag, so keys built around the
 * same part share a slot (one script or pipeline may touch them together) while different parts
 * spread over the nodes. On one server the key names stay what they have always been.
 */
export function slotTag(redis: RedisClient, part: string): string {
  return redis.isCluster ? `{${part}}` : part;
}

/**
 * Items split so that each group's keys may go out in one script call or pipeline: all of them on
 * one server, those of one slot on a cluster (a cluster refuses commands across slots).
 */
export function groupBySlot<T>(redis: RedisClient, items: readonly T[], keyOf: (item: T) => string): T[][] {
  if (!redis.isCluster) return items.length === 0 ? [] : [[...items]];
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const slot = calculateSlot(keyOf(item));
    const group = groups.get(slot);
    if (group === undefined) groups.set(slot, [item]);
    else group.push(item);
  }
  return [...groups.values()];
}
