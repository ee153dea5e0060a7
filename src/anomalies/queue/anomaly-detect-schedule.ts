import type { Queue } from 'bullmq';
import type { RedisClient } from '../../jobs/index.js';
import { ANOMALY_DETECT_SCHEDULER_ID, KEEP_FINISHED_JOBS, ROLLOUT_GUARD_JOB_NAME, ROLLOUT_GUARD_SCHEDULER_ID, type AnomalyDetectJobData } from './anomaly-jobs.js';

export interface AnomalyDetectScheduleOptions {
  /** The `anomaly-detect` queue the job scheduler belongs to. */
  queue: Queue<AnomalyDetectJobData>;
  /** The queue's connection: each time it is ready again after a loss, the schedule is checked at once. */
  redis: RedisClient;
  /** How often detection runs, and how often this process checks that the schedule still exists. */
  everyMs: number;
  /** Which of the queue's schedules: the detection rounds (default) or the rollout guard's. */
  schedule?: ScheduledJob;
  onError(error: Error): void;
}

export interface AnomalyDetectSchedule {
  /** No further checks; resolves when the one in progress has ended. */
  stop(): Promise<void>;
}

/** A job scheduler of the `anomaly-detect` queue: its id and the name of the jobs it makes. */
export interface ScheduledJob {
  schedulerId: string;
  jobName: string;
}

export const DETECTION_ROUNDS: ScheduledJob = { schedulerId: ANOMALY_DETECT_SCHEDULER_ID, jobName: 'detect-all' };
export const ROLLOUT_GUARD_ROUNDS: ScheduledJob = { schedulerId: ROLLOUT_GUARD_SCHEDULER_ID, jobName: ROLLOUT_GUARD_JOB_NAME };

function declareSchedule(queue: Queue<AnomalyDetectJobData>, everyMs: number, schedule: ScheduledJob) {
  return queue.upsertJobScheduler(
    schedule.schedulerId,
    { every: everyMs },
    { name: schedule.jobName, data: {}, opts: { removeOnComplete: KEEP_FINISHED_JOBS, removeOnFail: KEEP_FINISHED_JOBS } },
  );
}

/**
 * Declares the `anomaly-detect` job scheduler and keeps it declared. It lives only in Redis, so if
 * Redis comes back without its data nothing would queue a detection again: this process checks that
 * it exists every interval and whenever its connection is ready again, and declares it when it is
 * missing. A new declaration queues its first run at once, so detection resumes within an interval.
 *
 * Declared only when missing: a check of a healthy schedule writes nothing, and a worker configured
 * with another interval (while `ANOMALY_DETECT_INTERVAL_SECONDS` changes) does not restart the
 * schedule every interval. Two processes that find it missing at once still make one schedule: the
 * second upsert keeps the time of the first's pending run, or, while that run is active, adds the
 * one after it, which the active run's own follow-up then leaves alone.
 */
export async function startAnomalyDetectSchedule(options: AnomalyDetectScheduleOptions): Promise<AnomalyDetectSchedule> {
  const { queue, redis, everyMs } = options;
  const schedule = options.schedule ?? DETECTION_ROUNDS;
  await declareSchedule(queue, everyMs, schedule);

  let stopped = false;
  let checking: Promise<void> | null = null;
  const check = () => {
    // A check still waiting for Redis (it is away) is enough; this one is skipped.
    if (stopped || checking !== null) return;
    checking = (async () => {
      if ((await queue.getJobScheduler(schedule.schedulerId)) === undefined) await declareSchedule(queue, everyMs, schedule);
    })()
      .catch((error: Error) => {
        if (!stopped) options.onError(error);
      })
      .finally(() => {
        checking = null;
      });
  };
  const timer = setInterval(check, everyMs);
  timer.unref();
  redis.on('ready', check);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      redis.off('ready', check);
      await checking;
    },
  };
}
