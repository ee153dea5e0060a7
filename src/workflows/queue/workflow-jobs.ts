import { randomUUID } from 'node:crypto';
import { Queue, Worker, type JobsOptions } from 'bullmq';
import { createRedisClient, QUEUE_NAMES, queuePrefix, type RedisConnection } from '../../jobs/index.js';
import type { WorkflowRunner, WorkflowSlice } from '../workflow-runner.js';
import { createWorkflowTurns, type SliceOutcome, type WorkflowTurns } from './workflow-turns.js';

/**
 * `workflow-run` jobs. A `turn` job (`tenantId` only) runs a slice of some of the tenant's ready
 * workflows; every other job (`run`, `resume`, `retry`, `timeout`) names one workflow and puts it
 * in its tenant's ready list, after timing out `timedOutStep` when given.
 */
export interface WorkflowRunJobData {
  tenantId: string;
  workflowId?: string;
  timedOutStep?: string;
}

const KEEP_FINISHED = { count: 1000 } as const;

/** A job that fails (Redis away) is retried; stalled jobs are taken over by BullMQ. The retry limit of a slice is its own (below). */
export const WORKFLOW_RUN_JOB_OPTIONS: JobsOptions = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: KEEP_FINISHED,
  removeOnFail: KEEP_FINISHED,
};

/** Slices of one workflow that may fail in a row before it is left to the resume sweep… */
const WORKFLOW_SLICE_ATTEMPTS = 10;
/** …each retried after this, doubled per failure (0.5 s, 1 s, 2 s, … about 4 min at the tenth). */
const RETRY_BASE_MS = 500;

/**
 * How much a turn of one tenant does: `workflows` of them at once, each for one slice; as one's
 * slice ends another is taken from the tenant's list while the turn is younger than `slice.maxMs`.
 * A turn thus lasts at most about twice `slice.maxMs` (plus a step begun at the end of a slice).
 */
export interface WorkflowTurnSize {
  workflows: number;
  slice: WorkflowSlice;
}

/**
 * 32 workflows of the tenant at once, each for at most 50 events or 250 ms, taken for 250 ms. One
 * turn per tenant runs at a time, so 32 is also the most of one tenant's workflows advancing at once
 * in the whole deployment (as many as two worker processes of 16 jobs each would run of one job per workflow).
 */
const DEFAULT_TURN_SIZE: WorkflowTurnSize = { workflows: 32, slice: { maxEvents: 50, maxMs: 250 } };

/** How often lanes of a turn with nothing to take look for work offered meanwhile. */
const TURN_IDLE_POLL_MS = 10;

export interface WorkflowJobQueue {
  /** Puts the workflow in its tenant's ready list and makes sure the tenant has a turn queued. */
  enqueueRun(tenantId: string, workflowId: string): Promise<void>;
  /** One time-limit job per workflow and step: a no-op while a job of that id exists, in any state. */
  scheduleTimeout(tenantId: string, workflowId: string, step: string, delayMs: number): Promise<void>;
  /** A run queued by the resume sweep: a no-op while the previous one for the workflow is unfinished. */
  resume(tenantId: string, workflowId: string, timedOutStep?: string): Promise<void>;
  close(): Promise<void>;
}

/** What the worker needs of the producer besides the public side. */
interface TurnQueue extends WorkflowJobQueue {
  turns: WorkflowTurns;
  /** Queues the tenant's turn; while one runs, the next is queued behind every waiting job when it ends. */
  queueTurn(tenantId: string): Promise<void>;
  /** Puts a workflow whose slice failed back in its ready list after a back-off. */
  retry(tenantId: string, workflowId: string, failures: number): Promise<void>;
}

function createTurnQueue(connection: RedisConnection, prefix: string | undefined, name: string): TurnQueue {
  const client = createRedisClient(connection, name);
  const queue = new Queue<WorkflowRunJobData>(QUEUE_NAMES.workflowRun, { connection: client, prefix: queuePrefix(QUEUE_NAMES.workflowRun, prefix) });
  // Failures reach callers through the rejected call.
  queue.on('error', () => {});
  const turns = createWorkflowTurns(client, prefix);
  const queueTurn = async (tenantId: string) => {
    // One turn per tenant in the queue: an add while it waits is dropped, and an add while it runs
    // is kept (BullMQ's keepLastIfActive) and queued, at the tail, when the running one ends.
    await queue.add('turn', { tenantId }, { ...WORKFLOW_RUN_JOB_OPTIONS, deduplication: { id: `turn.${tenantId}`, keepLastIfActive: true } });
  };
  return {
    turns,
    queueTurn,
    async enqueueRun(tenantId, workflowId) {
      await turns.offer(tenantId, workflowId);
      await queueTurn(tenantId);
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
    async retry(tenantId, workflowId, failures) {
      const delay = RETRY_BASE_MS * 2 ** (failures - 1);
      await queue.add('retry', { tenantId, workflowId }, { ...WORKFLOW_RUN_JOB_OPTIONS, delay, deduplication: { id: `retry.${tenantId}.${workflowId}` } });
    },
    async close() {
      await queue.close();
      await client.quit().catch(() => undefined);
    },
  };
}

/** The producer side of `workflow-run` (API: starts, signals, cancels; workers: time limits, sweeps). */
export function createWorkflowJobQueue(options: { connection: RedisConnection; prefix?: string }): WorkflowJobQueue {
  const { enqueueRun, scheduleTimeout, resume, close } = createTurnQueue(options.connection, options.prefix, 'workflow-run-queue');
  return { enqueueRun, scheduleTimeout, resume, close };
}

export interface WorkflowWorker {
  readonly worker: Worker<WorkflowRunJobData>;
  close(): Promise<void>;
}

/** Why a slice failed, and whether the workflow is left to the resume sweep now (`givenUp`). */
export type SliceFailureReport = (error: unknown, tenantId: string, workflowId: string, failures: number, givenUp: boolean) => void;

/**
 * Consumes `workflow-run` on this process. Tenants take turns: each tenant has at most one turn
 * queued and one running, a turn advances a few of its workflows by one slice each and queues the
 * tenant again behind everyone else while work remains. So however many or long one tenant's
 * workflows are, another tenant's wait for its next slice is one turn of each tenant with work,
 * shared among the worker's concurrency.
 */
export async function startWorkflowWorker(options: {
  connection: RedisConnection;
  prefix?: string;
  runner: WorkflowRunner;
  /** Turns this process runs at once, each of another tenant. Default 16. */
  concurrency?: number;
  turn?: WorkflowTurnSize;
  /**
   * How long a worker holds a job without renewing the hold; when its process dies, another worker
   * takes the job over after this (BullMQ's stalled-job recovery). Default 30,000.
   */
  lockMs?: number;
  onError?: (error: Error) => void;
  onSliceFailed?: SliceFailureReport;
}): Promise<WorkflowWorker> {
  const lockMs = options.lockMs ?? 30_000;
  const size = options.turn ?? DEFAULT_TURN_SIZE;
  const producer = createTurnQueue(options.connection, options.prefix, 'workflow-run-turns');
  const { runner } = options;

  async function slice(tenantId: string, workflowId: string, token: string): Promise<SliceOutcome> {
    let outcome: SliceOutcome;
    let failure: unknown;
    try {
      outcome = (await runner.advance(tenantId, workflowId, size.slice)).more ? 'more' : 'idle';
    } catch (error) {
      outcome = 'failed';
      failure = error;
    }
    const failures = await producer.turns.settle(tenantId, workflowId, token, outcome, WORKFLOW_SLICE_ATTEMPTS);
    if (outcome === 'failed' && failures > 0) {
      // After the last attempt the resume sweep picks the workflow up again (rounds of attempts).
      const givenUp = failures >= WORKFLOW_SLICE_ATTEMPTS;
      options.onSliceFailed?.(failure, tenantId, workflowId, failures, givenUp);
      if (!givenUp) await producer.retry(tenantId, workflowId, failures);
    }
    return outcome;
  }

  async function turn(tenantId: string) {
    const began = performance.now();
    const token = randomUUID();
    await producer.turns.reclaim(tenantId);
    const outcomes: SliceOutcome[] = [];
    const young = () => performance.now() - began < size.slice.maxMs;
    let busy = 0;
    // Lanes that found the list empty wait together for work offered while other lanes still run
    // (a start, a signal): one look at the list per poll, for all of them.
    let poll: Promise<void> | null = null;
    const workArrives = () =>
      (poll ??= (async () => {
        while (busy > 0 && young()) {
          await new Promise((resolve) => setTimeout(resolve, TURN_IDLE_POLL_MS));
          if (await producer.turns.pending(tenantId)) return;
        }
      })().finally(() => {
        poll = null;
      }));
    // Each lane takes the next workflow from the head while the turn is young; a workflow is in one lane at a time.
    const lane = async () => {
      while (young()) {
        const workflowId = await producer.turns.take(tenantId, token);
        if (workflowId === null) {
          if (busy === 0) return;
          await workArrives();
          continue;
        }
        busy += 1;
        try {
          outcomes.push(await slice(tenantId, workflowId, token));
        } finally {
          busy -= 1;
        }
      }
    };
    // Every lane ends before the turn does, also when one failed (Redis away): the retried turn reclaims their leases.
    const lanes = await Promise.allSettled(Array.from({ length: size.workflows }, lane));
    const failed = lanes.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    if (await producer.turns.pending(tenantId)) await producer.queueTurn(tenantId);
    return { slices: outcomes.length, more: outcomes.filter((o) => o === 'more').length, failed: outcomes.filter((o) => o === 'failed').length };
  }

  const client = createRedisClient(options.connection, 'workflow-run-worker');
  const worker = new Worker<WorkflowRunJobData>(
    QUEUE_NAMES.workflowRun,
    async (job) => {
      const { tenantId, workflowId, timedOutStep } = job.data;
      if (typeof tenantId !== 'string') throw new Error('workflow-run job data has no tenantId');
      if (job.name === 'turn') return turn(tenantId);
      if (typeof workflowId !== 'string') throw new Error('workflow-run job data is not {tenantId, workflowId}');
      if (timedOutStep !== undefined) await runner.timeOut(tenantId, workflowId, timedOutStep);
      await producer.enqueueRun(tenantId, workflowId);
      return null;
    },
    {
      connection: client,
      prefix: queuePrefix(QUEUE_NAMES.workflowRun, options.prefix),
      concurrency: options.concurrency ?? 16,
      lockDuration: lockMs,
      stalledInterval: lockMs,
      // A job whose worker died is taken over however often that happens: the runner replays the
      // log and a turn puts the dead run's leases back, so running it again is always safe, and a
      // job given up would strand its workflows.
      maxStalledCount: Number.MAX_SAFE_INTEGER,
    },
  );
  worker.on('error', (error) => options.onError?.(error));
  try {
    await worker.waitUntilReady();
  } catch (error) {
    await producer.close();
    throw error;
  }
  return {
    worker,
    async close() {
      await worker.close();
      await producer.close();
      await client.quit().catch(() => undefined);
    },
  };
}
