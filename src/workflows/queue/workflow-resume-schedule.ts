import type { Redis } from 'ioredis';

/** Longest a stopping process waits for a sweep in progress. */
const STOP_WAIT_MS = 5000;

export interface WorkflowResumeScheduleOptions {
  /** A connection without an offline queue: while Redis is away a sweep fails and is skipped, not queued. */
  redis: Redis;
  /** The deployment's key prefix (`REDIS_KEY_PREFIX`). */
  prefix: string;
  intervalMs: number;
  /** One sweep from `after` (null: from the first workflow); resolves with where the next one starts. */
  sweep(after: string | null): Promise<{ next: string | null }>;
  onError(error: Error): void;
}

export interface WorkflowResumeSchedule {
  /** No further sweeps; resolves when the one in progress has ended, or after at most 5 s. */
  stop(): Promise<void>;
}

/**
 * Runs the workflow resume sweep at once and then every interval, in each worker process, while
 * one process per interval does the work: a sweep first takes a turn key in Redis (SET NX with an
 * expiry a little under the interval, so the taker's own next tick finds it free again), and the
 * others skip. Where a sweep stopped is kept in Redis too, so the pages go round whichever process
 * takes the turn. A timer in the process rather than a BullMQ job scheduler: the schedule must
 * survive Redis losing its data, which is what the sweep repairs.
 */
export function startWorkflowResumeSchedule(options: WorkflowResumeScheduleOptions): WorkflowResumeSchedule {
  const { redis, intervalMs } = options;
  if (!Number.isInteger(intervalMs) || intervalMs < 1) throw new RangeError('intervalMs must be a positive integer');
  const turnKey = `${options.prefix}:workflow-resume:turn`;
  const cursorKey = `${options.prefix}:workflow-resume:cursor`;
  const turnMs = Math.max(1, intervalMs - Math.ceil(intervalMs / 10));

  const sweepIfOurTurn = async () => {
    if ((await redis.set(turnKey, '1', 'PX', turnMs, 'NX')) === null) return;
    const { next } = await options.sweep(await redis.get(cursorKey));
    if (next === null) await redis.del(cursorKey);
    else await redis.set(cursorKey, next);
  };

  let running: Promise<void> | null = null;
  const tick = () => {
    // A sweep still in progress (a slow store) keeps its turn; this tick is skipped.
    if (running !== null) return;
    running = sweepIfOurTurn()
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
      // A sweep queuing a job while Redis is away waits for Redis (BullMQ's connections retry
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
