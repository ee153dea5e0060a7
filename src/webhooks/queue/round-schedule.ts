import type { Redis } from 'ioredis';
import { QUEUE_NAMES, queuePrefix } from '../../jobs/index.js';

export interface RoundScheduleOptions {
  /** Names the Redis keys of its turn and position: `follow`, `stranded`. */
  name: string;
  /** A connection without an offline queue: while Redis is away a round is skipped, not queued. */
  redis: Redis;
  /** The deployment's key prefix (`REDIS_KEY_PREFIX`). */
  prefix?: string;
  intervalMs: number;
  /** One round from `after` (null: from the first tenant); resolves with where the next one starts. */
  round(after: string | null): Promise<{ next: string | null }>;
  onError(error: Error): void;
}

export interface RoundSchedule {
  /** No further rounds; resolves when the one in progress has ended. */
  stop(): Promise<void>;
}

/**
 * Runs rounds over the followed tenants (the chain follower's, the stranded deliveries' sweep)
 * every interval in each worker process, one process per interval doing the work: a round first
 * takes a turn key (SET NX with an expiry a little under the interval) and the others skip. Where
 * a round stopped among the tenants is kept in Redis, so the rounds go through them whichever
 * process takes the turn (lost with Redis's data, the rounds start again from the first tenant).
 * A timer in the process, like the workflow resume sweep: what the rounds go by (cursors,
 * deliveries) is in the store, so a Redis that lost its data loses nothing they need. Two rounds
 * that overlap (one slower than the interval) do some work twice, which delivery ids and job ids
 * make harmless.
 */
export function startRoundSchedule(options: RoundScheduleOptions): RoundSchedule {
  const { redis, intervalMs } = options;
  if (!Number.isInteger(intervalMs) || intervalMs < 1) throw new RangeError('intervalMs must be a positive integer');
  const base = queuePrefix(QUEUE_NAMES.webhookDeliver, options.prefix);
  const turnKey = `${base}:${options.name}-turn`;
  const positionKey = `${base}:${options.name}-position`;
  const turnMs = Math.max(1, intervalMs - Math.ceil(intervalMs / 10));

  let running: Promise<void> | null = null;
  const tick = () => {
    if (running !== null) return;
    running = (async () => {
      if ((await redis.set(turnKey, '1', 'PX', turnMs, 'NX')) === null) return;
      const { next } = await options.round(await redis.get(positionKey));
      if (next === null) await redis.del(positionKey);
      else await redis.set(positionKey, next);
    })()
      .catch((error: Error) => options.onError(error))
      .finally(() => {
        running = null;
      });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
