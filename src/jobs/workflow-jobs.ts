import { Queue, Worker, type JobsOptions } from 'bullmq';
import type { WorkflowRunner } from '../workflows/index.js';
import { QUEUE_NAMES, queuePrefix } from './queue-names.js';
import { createRedisClient, type RedisConnection } from './redis-connection.js';

/** `workflow-run`: advance a workflow; with `timedOutStep`, that step's time limit has passed. */
export interface WorkflowRunJobData {
  tenantId: string;
  workflowId: string;
  timedOutStep?: string;
}

const KEEP_FINISHED = { count: 1000 } as const;

/** A job that fails (the engine away, a store error) is retried; stalled jobs are taken over by BullMQ. */
export const WORKFLOW_RUN_JOB_OPTIONS: JobsOptions = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: KEEP_FINISHED,
  removeOnFail: KEEP_FINISHED,
};

export interface WorkflowJobQueue {
  enqueueRun(tenantId: string, workflowId: string): Promise<void>;
  /** One time-limit job per workflow and step: a no-op while a job of that id exists, in any state. */
  scheduleTimeout(tenantId: string, workflowId: string, step: string, delayMs: number): Promise<void>;
  /** A run queued by the resume sweep: a no-op while the previous one for the workflow is unfinished. */
  resume(tenantId: string, workflowId: string, timedOutStep?: string): Promise<void>;
  close(): Promise<void>;
}

function queueOf(connection: RedisConnection, prefix: string | undefined, name: string) {
  const client = createRedisClient(connection, name);
  const queue = new Queue<WorkflowRunJobData>(QUEUE_NAMES.workflowRun, { connection: client, prefix: queuePrefix(QUEUE_NAMES.workflowRun, prefix) });
  // Failures reach callers through the rejected call.
  queue.on('error', () => {});
  return { client, queue };
}

/** The producer side of `workflow-run` (API: starts, signals, cancels; workers: time limits). */
export function createWorkflowJobQueue(options: { connection: RedisConnection; prefix?: string }): WorkflowJobQueue {
  const { client, queue } = queueOf(options.connection, options.prefix, 'workflow-run-queue');
  return {
    async enqueueRun(tenantId, workflowId) {
      await queue.add('run', { tenantId, workflowId }, WORKFLOW_RUN_JOB_OPTIONS);
    },
    async scheduleTimeout(tenantId, workflowId, step, delayMs) {
      // One timer per workflow and step: a repeated schedule (a replayed append) is not queued twice.
      const jobId = `timeout.${tenantId}.${workflowId}.${Buffer.from(step).toString('base64url')}`;
      await queue.add('timeout', { tenantId, workflowId, timedOutStep: step }, { ...WORKFLOW_RUN_JOB_OPTIONS, delay: delayMs, jobId });
    },
    async resume(tenantId, workflowId, timedOutStep) {
      // BullMQ ignores an add whose jobId exists, also a finished job it keeps (removeOnComplete),
      // which would block a later resume of the same workflow for good. A deduplication id is held
      // only until its job completes or fails: one resume at a time, and a new one after it.
      const deduplication = { id: `resume.${tenantId}.${workflowId}` };
      const data = timedOutStep === undefined ? { tenantId, workflowId } : { tenantId, workflowId, timedOutStep };
      await queue.add('resume', data, { ...WORKFLOW_RUN_JOB_OPTIONS, deduplication });
    },
    async close() {
      await queue.close();
      await client.quit().catch(() => undefined);
    },
  };
}

export interface WorkflowWorker {
  readonly worker: Worker<WorkflowRunJobData>;
  close(): Promise<void>;
}

/** Consumes `workflow-run` on this process: each job advances one workflow as far as it can go. */
export async function startWorkflowWorker(options: {
  connection: RedisConnection;
  prefix?: string;
  runner: WorkflowRunner;
  concurrency?: number;
  /**
   * How long a worker holds a job without renewing the hold; when its process dies, another worker
   * takes the job over after this (BullMQ's stalled-job recovery). Default 30,000.
   */
  lockMs?: number;
  onError?: (error: Error) => void;
}): Promise<WorkflowWorker> {
  const lockMs = options.lockMs ?? 30_000;
  const client = createRedisClient(options.connection, 'workflow-run-worker');
  const worker = new Worker<WorkflowRunJobData>(
    QUEUE_NAMES.workflowRun,
    async (job) => {
      const { tenantId, workflowId, timedOutStep } = job.data;
      if (typeof tenantId !== 'string' || typeof workflowId !== 'string') throw new Error('workflow-run job data is not {tenantId, workflowId}');
      const state = timedOutStep === undefined ? await options.runner.advance(tenantId, workflowId) : await options.runner.timedOut(tenantId, workflowId, timedOutStep);
      return state === null ? null : { status: state.status, currentStep: state.currentStep };
    },
    {
      connection: client,
      prefix: queuePrefix(QUEUE_NAMES.workflowRun, options.prefix),
      concurrency: options.concurrency ?? 16,
      lockDuration: lockMs,
      stalledInterval: lockMs,
      // A job whose worker died is taken over however often that happens: the runner replays the
      // log, so running it again is always safe, and a job given up would strand its workflow.
      maxStalledCount: Number.MAX_SAFE_INTEGER,
    },
  );
  worker.on('error', (error) => options.onError?.(error));
  await worker.waitUntilReady();
  return {
    worker,
    async close() {
      await worker.close();
      await client.quit().catch(() => undefined);
    },
  };
}
