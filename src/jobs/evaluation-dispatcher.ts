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
  /** A batch without an answer after this long rejects with NoWorkerAvailableError; default 5000. */
  responseTimeoutMs?: number;
}

export interface EvaluationDispatcherStats {
  batches: number;
  items: number;
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

  let transport: BatchTransport;
  if (options.pool) {
    const pool = options.pool;
    transport = { send: (items) => pool.evaluateMany(items), close: async () => {} };
  } else if (options.connection !== undefined) {
    transport = createRedisBatchTransport({ connection: options.connection, prefix: options.prefix, responseTimeoutMs });
  } else {
    throw new TypeError('createEvaluationDispatcher needs a Redis `connection` or a local `pool`');
  }

  const stats: EvaluationDispatcherStats = { batches: 0, items: 0 };
  let buffer: Pending[] = [];
  let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  let closed = false;

  function flush(): void {
    if (timer !== null) {
      if (flushMs === 0) clearImmediate(timer as NodeJS.Immediate);
      else clearTimeout(timer as NodeJS.Timeout);
      timer = null;
    }
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    stats.batches++;
    stats.items += batch.length;
    transport.send(batch.map((pending) => pending.item)).then(
      (results) => batch.forEach((pending, index) => pending.resolve(results[index]!)),
      (error: unknown) => batch.forEach((pending) => pending.reject(error)),
    );
  }

  function enqueue(item: EvaluationItem): Promise<ItemResult> {
    if (closed) return Promise.reject(new DispatcherClosedError());
    return new Promise<ItemResult>((resolve, reject) => {
      buffer.push({ item, resolve, reject });
      if (buffer.length >= maxBatchItems) flush();
      else if (timer === null) timer = flushMs === 0 ? setImmediate(flush) : setTimeout(flush, flushMs);
    });
  }

  return {
    evaluate: enqueue,
    evaluateMany: (items) => Promise.all(items.map(enqueue)),
    stats: () => ({ ...stats }),
    async close() {
      if (closed) return;
      closed = true;
      flush();
      await transport.close();
    },
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
