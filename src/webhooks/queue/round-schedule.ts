import type { RedisClient } from '../../jobs/index.js';
import { QUEUE_NAMES, queuePrefix, startTurnSchedule, type TurnSchedule } from '../../jobs/index.js';

export interface RoundScheduleOptions {
  /** Names the Redis keys of its turn and position: `follow`, `stranded`. */
  name: string;
  /** A connection without an offline queue: while Redis is away a round is skipped, not queued. */
  redis: RedisClient;
  /** The deployment's key prefix (`REDIS_KEY_PREFIX`). */
  prefix?: string;
  intervalMs: number;
  /** One round from `after` (null: from the first tenant); resolves with where the next one starts. */
  round(after: string | null): Promise<{ next: string | null }>;
  onError(error: Error): void;
}

/**
 * Runs rounds over the followed tenants (the chain follower's, the stranded deliveries' sweep)
 * every interval, one worker process per interval doing it, the position among the tenants kept
 * in Redis beside the `webhook-deliver` queue. What the rounds go by (cursors, deliveries) is in
 * the store, so a Redis that lost its data loses nothing they need. Two rounds that overlap (one
 * slower than the interval) do some work twice, which delivery ids and job ids make harmless.
 */
export function startRoundSchedule(options: RoundScheduleOptions): TurnSchedule {
  const base = queuePrefix(QUEUE_NAMES.webhookDeliver, options.prefix);
  return startTurnSchedule({
    redis: options.redis,
    turnKey: `${base}:${options.name}-turn`,
    cursorKey: `${base}:${options.name}-position`,
    intervalMs: options.intervalMs,
    round: options.round,
    onError: options.onError,
  });
}
