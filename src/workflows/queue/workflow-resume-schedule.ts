import type { RedisClient } from '../../jobs/index.js';
import { startTurnSchedule, type TurnSchedule } from '../../jobs/index.js';

export interface WorkflowResumeScheduleOptions {
  /** A connection without an offline queue: while Redis is away a sweep fails and is skipped, not queued. */
  redis: RedisClient;
  /** The deployment's key prefix (`REDIS_KEY_PREFIX`). */
  prefix: string;
  intervalMs: number;
  /** One sweep from `after` (null: from the first workflow); resolves with where the next one starts. */
  sweep(after: string | null): Promise<{ next: string | null }>;
  onError(error: Error): void;
}

export type WorkflowResumeSchedule = TurnSchedule;

/**
 * Runs the workflow resume sweep at once and then every interval, one worker process per interval
 * doing it (`<prefix>:workflow-resume:turn`), going on from where the last stopped
 * (`<prefix>:workflow-resume:cursor`). A timer rather than a BullMQ job scheduler: the schedule
 * must survive Redis losing its data, which is what the sweep repairs.
 */
export function startWorkflowResumeSchedule(options: WorkflowResumeScheduleOptions): WorkflowResumeSchedule {
  return startTurnSchedule({
    redis: options.redis,
    turnKey: `${options.prefix}:workflow-resume:turn`,
    cursorKey: `${options.prefix}:workflow-resume:cursor`,
    intervalMs: options.intervalMs,
    round: options.sweep,
    onError: options.onError,
  });
}
