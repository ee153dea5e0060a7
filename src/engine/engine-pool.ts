/**
 * The evaluation engine: a Piscina pool of threads running the interpreter. The interpreter never
 * runs on the caller's event loop; a runaway evaluation costs one thread restart, never the process.
 * Threads are shared fairly among tenants (see tenant-scheduler.ts).
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { DEFAULT_MAX_RESULT_BYTES, DEFAULT_MAX_TRACE_BYTES } from '../language/index.js';
import { sliceBatch, type BatchItem, type EvaluationBatch } from './evaluation-batch.js';
import {
  CANCELLED_ERROR,
  EngineFailureCode,
  engineFailure,
  INTERNAL_EVALUATION_ERROR,
  resultKindOf,
  serializeResult,
  THREAD_STOPPED_ERROR,
  timeoutFailure,
  type ItemResult,
  type SerializedItemResult,
} from './item-result.js';
import { createTenantScheduler, type ScheduledItem } from './tenant-scheduler.js';
import { resolveThreadFile } from './thread-file.js';
import {
  PROGRESS_INDEX,
  PROGRESS_STARTED_AT,
  createProgressBuffer,
  type ThreadSettings,
  type ThreadTaskResult,
  type ThreadTask,
} from './thread-protocol.js';

/** Wall-time limit of one item (compiling or evaluating untrusted source) unless configured otherwise. */
export const DEFAULT_TASK_TIMEOUT_MS = 1000;

export interface EnginePoolOptions {
  /** Worker threads; default `os.availableParallelism()`. */
  threads?: number;
  /** Wall-time limit of one item (compile + evaluate), enforced from outside the thread; default 1000. */
  taskTimeoutMs?: number;
  /** Compiled programs kept per tenant and thread (LRU by count); default 64. 0 disables the cache. */
  cacheSize?: number;
  /** Tenants whose programs each thread keeps; default 32. */
  cacheTenants?: number;
  /** Step budget of every evaluation; default: the language's (1,000,000). */
  stepBudget?: number;
  /** Largest JSON result of one evaluation; default 1 MiB. */
  maxResultBytes?: number;
  /** Largest JSON decision trace of one evaluation; default 1 MiB. */
  maxTraceBytes?: number;
  /** Largest number of items sent to a thread in one task; default 64. */
  maxItemsPerTask?: number;
  /**
   * How long one task should keep a thread, in ms; default 5. Items are grouped into tasks by
   * their tenant's measured cost, so cheap items share a task and costly ones go one by one,
   * letting other tenants in between.
   */
  taskSliceMs?: number;
  /** V8 old-generation limit per thread, so a memory-hungry evaluation kills its thread, not the process. */
  maxThreadMemoryMb?: number;
  /** Compiled thread entry; default dist/workers/evaluation-thread.js. */
  threadFile?: string;
}

export interface EnginePoolStats {
  threads: number;
  /** Items waiting for a thread. */
  queuedItems: number;
  tasks: number;
  items: number;
  failedItems: number;
  timedOutItems: number;
  cancelledItems: number;
  /** Threads that stopped while running a task (crash, out of memory, terminated from outside). */
  threadFailures: number;
  cacheHits: number;
  cacheMisses: number;
  /** Share of the threads' time spent running tasks since the pool started, 0 to 1 (Piscina's). */
  utilization: number;
}

/** One batch on its way through the pool. */
export interface EngineRun {
  /** One result per item, in batch order. Rejects only when the engine itself cannot run. */
  readonly results: Promise<SerializedItemResult[]>;
  /**
   * Nobody waits for these items (all when no positions are given): those not started yet are not
   * run and answer ERR_EVALUATION_CANCELLED; those running finish within their time limit.
   */
  cancel(positions?: readonly number[]): void;
}

export interface EngineRunOptions {
  /**
   * Called as each item settles, before the whole batch has: a caller can pass an item's answer on
   * at once instead of holding it for the batch's slowest item (which may be another tenant's).
   */
  onResult?(position: number, result: SerializedItemResult): void;
}

export interface EnginePool {
  readonly size: number;
  readonly taskTimeoutMs: number;
  run(batch: EvaluationBatch, options?: EngineRunOptions): EngineRun;
  stats(): EnginePoolStats;
  /** The live thread handles (for health checks and fault-injection tests). */
  threadWorkers(): readonly Worker[];
  close(): Promise<void>;
}

export class EnginePoolClosedError extends Error {
  constructor() {
    super('the evaluation engine is closed');
    this.name = 'EnginePoolClosedError';
  }
}

/** The threads fail before running any item (for example a broken build): an infrastructure failure. */
export class EngineThreadError extends Error {
  constructor(cause: unknown) {
    super(`evaluation threads cannot run: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'EngineThreadError';
  }
}

const THREAD_FILE = 'evaluation-thread';
/** A thread that dies on the same item twice is not retried again: the item is the likely cause. */
const MAX_THREAD_FAILURES_PER_ITEM = 2;
/**
 * Tasks in a row, with no task succeeding in between, whose thread died before running anything:
 * past this the threads cannot run at all (e.g. a broken build). A task of several items that dies
 * before starting is split, so one item that kills a thread on arrival (a huge context under a
 * memory limit) fails alone and cannot reach this count by itself.
 */
const MAX_FAILURES_BEFORE_START = 5;

/** Per batch: where its results go and how many are still missing. */
interface RunState {
  batch: EvaluationBatch;
  results: SerializedItemResult[];
  remaining: number;
  resolve(results: SerializedItemResult[]): void;
  reject(error: unknown): void;
  onResult: EngineRunOptions['onResult'];
}

interface PoolItem extends ScheduledItem {
  run: RunState;
  position: number;
  threadFailures: number;
  settled: boolean;
  /** Runs in a task of its own (its task died before starting). */
  alone: boolean;
}

type TaskOutcome =
  | { kind: 'done'; results: ThreadTaskResult['results'] }
  | { kind: 'timeout'; position: number; elapsedMs: number }
  | { kind: 'thread-failed'; position: number; error: unknown };

class TimeoutReason {
  constructor(
    readonly position: number,
    readonly elapsedMs: number,
  ) {}
}

/** The kind of result an item answers; a malformed item (even `null`) answers an evaluation failure. */
function resultKind(item: BatchItem | null | undefined): ItemResult['kind'] {
  return resultKindOf(item?.kind);
}

export function createEnginePool(options: EnginePoolOptions = {}): EnginePool {
  const threads = positiveInteger('threads', options.threads ?? availableParallelism());
  const taskTimeoutMs = positiveInteger('taskTimeoutMs', options.taskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS);
  const cacheSize = options.cacheSize ?? 64;
  if (!Number.isInteger(cacheSize) || cacheSize < 0) throw new RangeError(`cacheSize must be a non-negative integer, got ${cacheSize}`);
  const settings: ThreadSettings = {
    cacheSize,
    cacheTenants: positiveInteger('cacheTenants', options.cacheTenants ?? 32),
    maxResultBytes: positiveInteger('maxResultBytes', options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES),
    maxTraceBytes: positiveInteger('maxTraceBytes', options.maxTraceBytes ?? DEFAULT_MAX_TRACE_BYTES),
  };
  if (options.stepBudget !== undefined) settings.stepBudget = positiveInteger('stepBudget', options.stepBudget);
  const scheduler = createTenantScheduler<PoolItem>({
    maxItemsPerTask: positiveInteger('maxItemsPerTask', options.maxItemsPerTask ?? 64),
    taskSliceMs: options.taskSliceMs ?? 5,
  });

  const counters = { tasks: 0, items: 0, failedItems: 0, timedOutItems: 0, cancelledItems: 0, threadFailures: 0, cacheHits: 0, cacheMisses: 0 };
  let closed = false;
  let running = 0;
  /** Batches not answered yet, so close() can reject those whose items are on a thread right now. */
  const openRuns = new Set<RunState>();
  /** Tasks in a row whose thread died before it ran anything. */
  let failuresBeforeStart = 0;

  const piscina = new Piscina<ThreadTask, ThreadTaskResult>({
    filename: options.threadFile ?? resolveThreadFile(THREAD_FILE),
    minThreads: threads,
    maxThreads: threads,
    // Threads hold the program cache: keep them for the life of the pool.
    idleTimeout: Number.MAX_SAFE_INTEGER,
    workerData: settings,
    ...(options.maxThreadMemoryMb ? { resourceLimits: { maxOldGenerationSizeMb: options.maxThreadMemoryMb } } : {}),
  });
  // A thread dying between tasks surfaces here; Piscina already replaces it.
  piscina.on('error', () => {
    counters.threadFailures++;
  });

  function settle(item: PoolItem, result: SerializedItemResult): void {
    if (item.settled) return;
    item.settled = true;
    counters.items++;
    if (!result.ok) counters.failedItems++;
    const { run } = item;
    run.results[item.position] = result;
    run.onResult?.(item.position, result);
    if (--run.remaining === 0) {
      openRuns.delete(run);
      run.resolve(run.results);
    }
  }

  function settleFailure(item: PoolItem, code: string, error: string): void {
    settle(item, serializeResult(engineFailure(resultKind(item.run.batch.items[item.position]!), code, error)));
  }

  function runTask(task: readonly PoolItem[]): Promise<TaskOutcome> {
    // Every item of a task belongs to one tenant; they may come from several batches.
    const batch = sliceBatch(task.map((item) => ({ batch: item.run.batch, position: item.position })));
    const progressBuffer = createProgressBuffer();
    const progress = new Int32Array(progressBuffer);
    const baseTime = Date.now();
    const controller = new AbortController();

    // Each item gets its own taskTimeoutMs from the moment it starts; time queued for a thread does not count.
    let timer: NodeJS.Timeout;
    const watch = (delayMs: number) => {
      timer = setTimeout(() => {
        const position = Atomics.load(progress, PROGRESS_INDEX);
        if (position < 0) return watch(Math.max(10, Math.floor(taskTimeoutMs / 4)));
        const elapsedMs = Date.now() - (baseTime + Atomics.load(progress, PROGRESS_STARTED_AT));
        if (elapsedMs >= taskTimeoutMs) return controller.abort(new TimeoutReason(position, elapsedMs));
        watch(taskTimeoutMs - elapsedMs);
      }, delayMs);
    };
    watch(taskTimeoutMs);
    counters.tasks++;

    return piscina
      .run({ batch, progress: progressBuffer, baseTime }, { signal: controller.signal })
      .then(
        (result): TaskOutcome => ({ kind: 'done', results: result.results }),
        (error: unknown): TaskOutcome => {
          const reason: unknown = controller.signal.reason;
          if (reason instanceof TimeoutReason) return { kind: 'timeout', position: reason.position, elapsedMs: reason.elapsedMs };
          return { kind: 'thread-failed', position: Atomics.load(progress, PROGRESS_INDEX), error };
        },
      )
      .finally(() => clearTimeout(timer));
  }

  function handleOutcome(task: PoolItem[], outcome: TaskOutcome): void {
    if (outcome.kind === 'done') {
      failuresBeforeStart = 0;
      if (outcome.results.length !== task.length) {
        // Never expected; without this the missing items would wait forever.
        for (const item of task.slice(outcome.results.length)) settleFailure(item, EngineFailureCode.INTERNAL, INTERNAL_EVALUATION_ERROR);
      }
      outcome.results.slice(0, task.length).forEach((threadResult, index) => {
        const item = task[index]!;
        if (threadResult.cacheHit) counters.cacheHits++;
        else counters.cacheMisses++;
        scheduler.observe(item.tenantId, threadResult.executionTimeMs);
        settle(item, { ok: threadResult.ok, json: threadResult.json });
      });
      return;
    }
    if (outcome.kind === 'timeout') {
      // The items before it finished, but their results died with the thread: evaluation is pure, so run them again.
      const culprit = task[outcome.position]!;
      counters.timedOutItems++;
      scheduler.observe(culprit.tenantId, taskTimeoutMs);
      const kind = resultKind(culprit.run.batch.items[culprit.position]!);
      settle(culprit, serializeResult(timeoutFailure(kind, taskTimeoutMs, outcome.elapsedMs)));
      scheduler.requeue(task.filter((item) => !item.settled));
      return;
    }
    counters.threadFailures++;
    if (outcome.position < 0) {
      if (++failuresBeforeStart >= MAX_FAILURES_BEFORE_START) {
        // The threads cannot run at all: fail every batch waiting for them instead of looping.
        failEverything(new EngineThreadError(outcome.error), task);
        return;
      }
      if (task.length > 1) {
        // Something in the task killed the thread on arrival: retry its items one by one.
        for (const item of task) item.alone = true;
        scheduler.requeue(task.filter((item) => !item.settled));
        return;
      }
    }
    // A thread killed from outside is retried once on a fresh thread; dying twice on one item blames the item.
    const victim = task[Math.max(0, outcome.position)]!;
    if (++victim.threadFailures >= MAX_THREAD_FAILURES_PER_ITEM) settleFailure(victim, EngineFailureCode.THREAD_STOPPED, THREAD_STOPPED_ERROR);
    scheduler.requeue(task.filter((item) => !item.settled));
  }

  function failEverything(error: unknown, task: readonly PoolItem[]): void {
    const runs = new Set<RunState>(task.map((item) => item.run));
    for (const item of scheduler.drain()) runs.add(item.run);
    for (const run of runs) {
      run.remaining = -1;
      openRuns.delete(run);
      run.reject(error);
    }
  }

  function pump(): void {
    while (!closed && running < threads) {
      const next = scheduler.next(threads - running);
      if (next === null) return;
      let live = next.filter((item) => !item.settled && item.run.remaining > 0);
      const alone = live.findIndex((item) => item.alone);
      if (alone >= 0 && live.length > 1) {
        scheduler.requeue(live.filter((_, index) => index !== alone));
        live = [live[alone]!];
      }
      if (live.length === 0) continue;
      running++;
      void runTask(live).then((outcome) => {
        running--;
        if (!closed) handleOutcome(live, outcome);
        pump();
      });
    }
  }

  function run(batch: EvaluationBatch, runOptions: EngineRunOptions = {}): EngineRun {
    let state!: RunState;
    const results = new Promise<SerializedItemResult[]>((resolve, reject) => {
      state = {
        batch,
        results: new Array<SerializedItemResult>(batch.items.length),
        remaining: batch.items.length,
        resolve,
        reject,
        onResult: runOptions.onResult,
      };
    });
    const items: PoolItem[] = batch.items.map((item, position) => ({
      tenantId: typeof item?.tenantId === 'string' ? item.tenantId : '',
      run: state,
      position,
      threadFailures: 0,
      settled: false,
      alone: false,
    }));
    if (closed) {
      state.reject(new EnginePoolClosedError());
      return { results, cancel: () => {} };
    }
    if (items.length === 0) state.resolve([]);
    else openRuns.add(state);
    const runnable: PoolItem[] = [];
    for (const item of items) {
      const problem = invalidItemReason(batch, item.position);
      if (problem !== null) settleFailure(item, EngineFailureCode.ITEM_INVALID, problem);
      else runnable.push(item);
    }
    scheduler.enqueue(runnable);
    pump();
    return {
      results,
      cancel(positions) {
        const chosen = positions === undefined ? items : positions.map((position) => items[position]).filter((item) => item !== undefined);
        let dropped = 0;
        for (const item of chosen) {
          if (item.settled) continue;
          counters.cancelledItems++;
          dropped++;
          settleFailure(item, EngineFailureCode.CANCELLED, CANCELLED_ERROR);
        }
        // Only this tenant's queue can hold them.
        if (dropped > 0) scheduler.discard((item) => item.settled, chosen[0]?.tenantId);
      },
    };
  }

  return {
    size: threads,
    taskTimeoutMs,
    run,
    stats: () => ({ threads: piscina.threads.length, queuedItems: scheduler.size(), ...counters, utilization: piscina.utilization }),
    threadWorkers: () => piscina.threads,
    async close() {
      if (closed) return;
      closed = true;
      // Queued items are dropped; items on a thread finish there, but their results are no longer
      // read (handleOutcome is skipped once closed), so every open batch is rejected here.
      scheduler.drain();
      for (const run of openRuns) {
        run.remaining = -1;
        run.reject(new EnginePoolClosedError());
      }
      openRuns.clear();
      await piscina.close();
    },
  };
}

function invalidItemReason(batch: EvaluationBatch, position: number): string | null {
  const item = batch.items[position] as Partial<BatchItem> | null | undefined;
  if (item === null || typeof item !== 'object') return 'invalid evaluation item: expected an object';
  if (item.kind !== 'evaluate' && item.kind !== 'compile' && item.kind !== 'format') return 'invalid evaluation item: `kind` must be `evaluate`, `compile` or `format`';
  if (typeof item.tenantId !== 'string' || item.tenantId === '') return 'invalid evaluation item: `tenantId` must be a non-empty string';
  if (typeof item.locale !== 'string') return 'invalid evaluation item: `locale` must be a string';
  if (item.kind === 'evaluate' && typeof item.functionName !== 'string') return 'invalid evaluation item: `functionName` must be a string';
  if (item.kind === 'format' && typeof item.targetLocale !== 'string') return 'invalid evaluation item: `targetLocale` must be a string';
  if (typeof item.sourceIndex !== 'number' || !Array.isArray(batch.sources) || typeof batch.sources[item.sourceIndex] !== 'string') {
    return 'invalid evaluation item: `sourceIndex` must point into `sources`';
  }
  return null;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
