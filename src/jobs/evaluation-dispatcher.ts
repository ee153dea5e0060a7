import type { EnginePool, EvaluationItem, ItemResult } from '../engine/index.js';
import { DispatcherClosedError } from './dispatch-errors.js';
import { createRedisBatchTransport, type BatchTransport } from './redis-batch-transport.js';
import type { RedisConnection } from './redis-connection.js';

export interface EvaluationDispatcherOptions {
  /** Redis to reach the workers through the `policy-evaluate` queue. */
  connection?: RedisConnection;
  /** Run batches on this in-process pool instead of the queue (single process, no Redis hop). */
  pool?: EnginePool;
  prefix?: string;
  /** A batch is sent as soon as it holds this many items; default 64. */
  maxBatchItems?: number;
  /** …or this long after its first item arrived; default 1 (0 = next turn of the event loop). */
  flushMs?: number;
  /**
   * Batches on their way at once; default 4. When that many wait for answers, a due batch keeps
   * gathering items until one of them is answered (or it is full): under load, batches grow
   * instead of the queue carrying more, smaller jobs. Unbounded: Infinity.
   */
  maxInFlight?: number;
  /** A batch without an answer after this long rejects with NoWorkerAvailableError; default 5000. */
  responseTimeoutMs?: number;
}

export interface EvaluationDispatcherStats {
  batches: number;
  items: number;
  /** Batches sent and not answered yet. */
  inFlight: number;
}

export interface EvaluationDispatcher {
  evaluate(item: EvaluationItem): Promise<ItemResult>;
  /** One result per item, in input order. */
  evaluateMany(items: readonly EvaluationItem[]): Promise<ItemResult[]>;
  stats(): EvaluationDispatcherStats;
  /** Sends what is buffered, rejects what still waits with DispatcherClosedError, disconnects. */
  close(): Promise<void>;
}

interface Pending {
  item: EvaluationItem;
  resolve(result: ItemResult): void;
  reject(error: unknown): void;
}

/**
 * The API side of evaluation. Concurrent requests are coalesced into micro-batches, so the queue
 * round trip is paid per batch, not per request.
 */
export function createEvaluationDispatcher(options: EvaluationDispatcherOptions): EvaluationDispatcher {
  const maxBatchItems = positiveInteger('maxBatchItems', options.maxBatchItems ?? 64);
  const flushMs = options.flushMs ?? 1;
  if (!Number.isFinite(flushMs) || flushMs < 0) throw new RangeError(`flushMs must be a non-negative number, got ${flushMs}`);
  const responseTimeoutMs = positiveInteger('responseTimeoutMs', options.responseTimeoutMs ?? 5000);
  const maxInFlight = options.maxInFlight ?? 4;
  if (maxInFlight !== Infinity) positiveInteger('maxInFlight', maxInFlight);

  let transport: BatchTransport;
  if (options.pool) {
    const pool = options.pool;
    transport = { send: (items) => pool.evaluateMany(items), close: async () => {} };
  } else if (options.connection !== undefined) {
    transport = createRedisBatchTransport({ connection: options.connection, prefix: options.prefix, responseTimeoutMs });
  } else {
    throw new TypeError('createEvaluationDispatcher needs a Redis `connection` or a local `pool`');
  }

  const stats: EvaluationDispatcherStats = { batches: 0, items: 0, inFlight: 0 };
  let buffer: Pending[] = [];
  let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  /** The buffer is due but waits for a batch in flight to be answered. */
  let held = false;
  let closed = false;

  function cancelTimer(): void {
    if (timer === null) return;
    if (flushMs === 0) clearImmediate(timer as NodeJS.Immediate);
    else clearTimeout(timer as NodeJS.Timeout);
    timer = null;
  }

  /** The buffer is due (timer, full, or closing): send it unless enough batches are on their way. */
  function flushDue(force: boolean): void {
    cancelTimer();
    if (buffer.length === 0) return;
    if (!force && stats.inFlight >= maxInFlight && buffer.length < maxBatchItems) {
      held = true;
      return;
    }
    held = false;
    send(buffer);
    buffer = [];
  }

  function send(batch: Pending[]): void {
    stats.batches++;
    stats.items += batch.length;
    stats.inFlight++;
    const answered = () => {
      stats.inFlight--;
      if (held) flushDue(false);
    };
    transport.send(batch.map((pending) => pending.item)).then(
      (results) => {
        answered();
        batch.forEach((pending, index) => pending.resolve(results[index]!));
      },
      (error: unknown) => {
        answered();
        batch.forEach((pending) => pending.reject(error));
      },
    );
  }

  function enqueue(item: EvaluationItem): Promise<ItemResult> {
    if (closed) return Promise.reject(new DispatcherClosedError());
    return new Promise<ItemResult>((resolve, reject) => {
      buffer.push({ item, resolve, reject });
      if (buffer.length >= maxBatchItems) flushDue(false);
      else if (timer === null && !held) timer = flushMs === 0 ? setImmediate(() => flushDue(false)) : setTimeout(() => flushDue(false), flushMs);
    });
  }

  return {
    evaluate: enqueue,
    evaluateMany: (items) => Promise.all(items.map(enqueue)),
    stats: () => ({ ...stats }),
    async close() {
      if (closed) return;
      closed = true;
      flushDue(true);
      await transport.close();
    },
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
