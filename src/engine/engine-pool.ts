/**
 * The evaluation engine: a Piscina pool of threads running the interpreter. The interpreter never
 * runs on the caller's event loop; a runaway evaluation costs one thread restart, never the process.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { describeDiagnostic, type Diagnostic } from '../language/diagnostics/index.js';
import type { EvaluationItem, ItemResult } from './evaluation-item.js';
import { resolveThreadFile } from './thread-file.js';
import {
  PROGRESS_INDEX,
  PROGRESS_STARTED_AT,
  createProgressBuffer,
  type ThreadItem,
  type ThreadItemResult,
  type ThreadSettings,
  type ThreadTask,
  type ThreadTaskResult,
} from './thread-protocol.js';

export interface EnginePoolOptions {
  /** Worker threads; default `os.availableParallelism()`. */
  threads?: number;
  /** Wall-time limit of one item (compile + evaluate), enforced from outside the thread; default 1000. */
  taskTimeoutMs?: number;
  /** Compiled programs kept per thread (LRU by count); default 256. 0 disables the cache. */
  cacheSize?: number;
  /** Step budget of every evaluation; default: the language's (1,000,000). */
  stepBudget?: number;
  /** Largest number of items sent to a thread in one task; default 64. */
  maxItemsPerTask?: number;
  /** V8 old-generation limit per thread, so a memory-hungry evaluation kills its thread, not the process. */
  maxThreadMemoryMb?: number;
  /** Compiled thread entry; default dist/workers/evaluation-thread.js. */
  threadFile?: string;
}

export interface EvaluateManyOptions {
  /** Abandons the items not finished yet (in-flight threads are restarted); the promise rejects with the reason. */
  signal?: AbortSignal;
}

export interface EnginePoolStats {
  threads: number;
  queuedTasks: number;
  tasks: number;
  items: number;
  failedItems: number;
  timedOutItems: number;
  /** Threads that stopped while running a task (crash, out of memory, terminated from outside). */
  threadFailures: number;
  cacheHits: number;
  cacheMisses: number;
}

export interface EnginePool {
  readonly size: number;
  readonly taskTimeoutMs: number;
  evaluate(item: EvaluationItem, options?: EvaluateManyOptions): Promise<ItemResult>;
  /** One result per item, in input order; each item succeeds or fails on its own. */
  evaluateMany(items: readonly EvaluationItem[], options?: EvaluateManyOptions): Promise<ItemResult[]>;
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

export const THREAD_STOPPED_ERROR = 'evaluation thread stopped unexpectedly';
const THREAD_FILE = 'evaluation-thread';
/** A thread that dies on the same item twice is not retried again: the item is the likely cause. */
const MAX_THREAD_FAILURES_PER_ITEM = 2;

export function timeoutResult(limitMs: number, elapsedMs: number): ItemResult {
  const diagnostic: Diagnostic = { code: 'PL4004', severity: 'error', message: `evaluation timed out after ${limitMs} ms`, span: null };
  return { ok: false, value: null, diagnostics: [diagnostic], error: describeDiagnostic(diagnostic), executionTimeMs: elapsedMs };
}

interface PendingItem {
  index: number;
  item: EvaluationItem;
  threadFailures: number;
}

type TaskOutcome =
  | { kind: 'done'; results: ThreadItemResult[] }
  | { kind: 'timeout'; position: number; elapsedMs: number }
  | { kind: 'thread-failed'; position: number; error: unknown };

class TimeoutReason {
  constructor(
    readonly position: number,
    readonly elapsedMs: number,
  ) {}
}

export function createEnginePool(options: EnginePoolOptions = {}): EnginePool {
  const threads = positiveInteger('threads', options.threads ?? availableParallelism());
  const taskTimeoutMs = positiveInteger('taskTimeoutMs', options.taskTimeoutMs ?? 1000);
  const cacheSize = options.cacheSize ?? 256;
  const maxItemsPerTask = positiveInteger('maxItemsPerTask', options.maxItemsPerTask ?? 64);
  if (!Number.isInteger(cacheSize) || cacheSize < 0) throw new RangeError(`cacheSize must be a non-negative integer, got ${cacheSize}`);
  const settings: ThreadSettings = { cacheSize };
  if (options.stepBudget !== undefined) settings.stepBudget = positiveInteger('stepBudget', options.stepBudget);

  const counters = { tasks: 0, items: 0, failedItems: 0, timedOutItems: 0, threadFailures: 0, cacheHits: 0, cacheMisses: 0 };
  let closed = false;

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

  function runTask(batch: readonly PendingItem[], signal: AbortSignal | undefined): Promise<TaskOutcome> {
    const sources: string[] = [];
    const sourceIndexes = new Map<string, number>();
    const items: ThreadItem[] = batch.map(({ item }) => {
      let sourceIndex = sourceIndexes.get(item.source);
      if (sourceIndex === undefined) {
        sourceIndex = sources.push(item.source) - 1;
        sourceIndexes.set(item.source, sourceIndex);
      }
      return { sourceIndex, locale: item.locale, functionName: item.functionName, context: item.context, trace: item.trace === true };
    });
    const progressBuffer = createProgressBuffer();
    const progress = new Int32Array(progressBuffer);
    const baseTime = Date.now();
    const controller = new AbortController();
    const onCallerAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });

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
      .run({ sources, items, progress: progressBuffer, baseTime }, { signal: controller.signal })
      .then(
        (result): TaskOutcome => ({ kind: 'done', results: result.results }),
        (error: unknown): TaskOutcome => {
          const reason: unknown = controller.signal.reason;
          if (reason instanceof TimeoutReason) return { kind: 'timeout', position: reason.position, elapsedMs: reason.elapsedMs };
          if (signal?.aborted) throw signal.reason;
          if (closed) throw new EnginePoolClosedError();
          return { kind: 'thread-failed', position: Atomics.load(progress, PROGRESS_INDEX), error };
        },
      )
      .finally(() => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onCallerAbort);
      });
  }

  async function runChunk(chunk: PendingItem[], results: ItemResult[], signal: AbortSignal | undefined): Promise<void> {
    let pending = chunk;
    let failuresBeforeStart = 0;
    while (pending.length > 0) {
      signal?.throwIfAborted();
      const outcome = await runTask(pending, signal);
      if (outcome.kind === 'done') {
        outcome.results.forEach((threadResult, position) => {
          const { cacheHit, ...result } = threadResult;
          if (cacheHit) counters.cacheHits++;
          else counters.cacheMisses++;
          settle(results, pending[position]!.index, result);
        });
        return;
      }
      if (outcome.kind === 'timeout') {
        // The items before it finished, but their results died with the thread: evaluation is pure, so run them again.
        const culprit = pending[outcome.position]!;
        counters.timedOutItems++;
        settle(results, culprit.index, timeoutResult(taskTimeoutMs, outcome.elapsedMs));
        pending = pending.filter((entry) => entry !== culprit);
        continue;
      }
      counters.threadFailures++;
      if (outcome.position < 0) {
        if (++failuresBeforeStart >= MAX_THREAD_FAILURES_PER_ITEM) throw new EngineThreadError(outcome.error);
        continue;
      }
      // A thread killed from outside is retried once on a fresh thread; dying twice on one item blames the item.
      const victim = pending[outcome.position]!;
      if (++victim.threadFailures >= MAX_THREAD_FAILURES_PER_ITEM) {
        settle(results, victim.index, { ok: false, value: null, diagnostics: [], error: THREAD_STOPPED_ERROR, executionTimeMs: 0 });
        pending = pending.filter((entry) => entry !== victim);
      }
    }
  }

  function settle(results: ItemResult[], index: number, result: ItemResult): void {
    counters.items++;
    if (!result.ok) counters.failedItems++;
    results[index] = result;
  }

  async function evaluateMany(items: readonly EvaluationItem[], runOptions: EvaluateManyOptions = {}): Promise<ItemResult[]> {
    if (closed) throw new EnginePoolClosedError();
    const results = new Array<ItemResult>(items.length);
    const runnable: PendingItem[] = [];
    items.forEach((item, index) => {
      const problem = invalidItemReason(item);
      if (problem) settle(results, index, { ok: false, value: null, diagnostics: [], error: problem, executionTimeMs: 0 });
      else runnable.push({ index, item, threadFailures: 0 });
    });
    const chunkSize = Math.min(maxItemsPerTask, Math.ceil(runnable.length / threads));
    const chunks: Promise<void>[] = [];
    for (let start = 0; start < runnable.length; start += chunkSize) {
      chunks.push(runChunk(runnable.slice(start, start + chunkSize), results, runOptions.signal));
    }
    await Promise.all(chunks);
    return results;
  }

  return {
    size: threads,
    taskTimeoutMs,
    async evaluate(item, runOptions) {
      const [result] = await evaluateMany([item], runOptions);
      return result!;
    },
    evaluateMany,
    stats: () => ({ threads: piscina.threads.length, queuedTasks: piscina.queueSize, ...counters }),
    threadWorkers: () => piscina.threads,
    async close() {
      if (closed) return;
      closed = true;
      await piscina.close();
    },
  };
}

function invalidItemReason(item: EvaluationItem): string | null {
  if (item === null || typeof item !== 'object') return 'invalid evaluation item: expected an object';
  for (const field of ['source', 'locale', 'functionName'] as const) {
    if (typeof item[field] !== 'string') return `invalid evaluation item: \`${field}\` must be a string`;
  }
  return null;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
