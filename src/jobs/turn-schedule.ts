import type { RedisClient } from './redis-connection.js';

/** Longest a stopping process waits for a round in progress. */
const STOP_WAIT_MS = 5000;

export interface TurnScheduleOptions {
  /** A connection without an offline queue: while Redis is away a round fails and is skipped, not queued. */
  redis: RedisClient;
  /** The key whose holder does this interval's round. */
  turnKey: string;
  /** The key keeping where the last round stopped. */
  cursorKey: string;
  intervalMs: number;
  /** One round from `after` (null: from the start); resolves with where the next one starts. */
  round(after: string | null): Promise<{ next: string | null }>;
  onError(error: Error): void;
}

export interface TurnSchedule {
  /** No further rounds; resolves when the one in progress has ended, or after at most 5 s. */
  stop(): Promise<void>;
}

/**
 * Runs a round at once and then every interval, in each worker process, while one process per
 * interval does the work: a round first takes a turn key in Redis (SET NX with an expiry a little
 * under the interval, so the taker's own next tick finds it free again), and the others skip.
 * Where a round stopped is kept in Redis too, so the rounds go on whichever process takes the turn
 * (lost with Redis's data, they start again from the start). A timer in the process rather than a
 * BullMQ job scheduler: the rounds' callers keep what they go by in the store, so the schedule
 * survives Redis losing its data.
 */
export function startTurnSchedule(options: TurnScheduleOptions): TurnSchedule {
  const { redis, turnKey, cursorKey, intervalMs } = options;
  if (!Number.isInteger(intervalMs) || intervalMs < 1) throw new RangeError('intervalMs must be a positive integer');
  const turnMs = Math.max(1, intervalMs - Math.ceil(intervalMs / 10));

  const roundIfOurTurn = async () => {
    if ((await redis.set(turnKey, '1', 'PX', turnMs, 'NX')) === null) return;
    const { next } = await options.round(await redis.get(cursorKey));
    if (next === null) await redis.del(cursorKey);
    else await redis.set(cursorKey, next);
  };

  let running: Promise<void> | null = null;
  const tick = () => {
    // A round still in progress (a slow store) keeps its turn; this tick is skipped.
    if (running !== null) return;
    running = roundIfOurTurn()
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
      // A round queuing a job while Redis is away waits for Redis (BullMQ's connections retry
      // forever); shutdown waits for it only so long, then closing the queues ends it.
      let giveUp: NodeJS.Timeout | undefined;
      const bounded = new Promise<void>((resolve) => {
        giveUp = setTimeout(resolve, STOP_WAIT_MS);
        giveUp.unref();
      });
      await Promise.race([running, bounded]);
      clearTimeout(giveUp);
    },
  };
}
