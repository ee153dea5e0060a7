import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type { EvaluationItem, ItemResult } from '../engine/index.js';
import { DispatcherClosedError, EvaluationQueueError, EvaluationWorkerError, NoWorkerAvailableError } from './dispatch-errors.js';
import { replyChannelName, type PolicyEvaluateJobData, type PolicyEvaluateReply } from './policy-evaluate-job.js';
import { QUEUE_NAMES, queuePrefix } from './queue-names.js';
import { createRedisClient, type RedisConnection } from './redis-connection.js';

/** Sends one micro-batch somewhere that evaluates it and resolves with its results in item order. */
export interface BatchTransport {
  send(items: readonly EvaluationItem[]): Promise<ItemResult[]>;
  close(): Promise<void>;
}

export interface RedisBatchTransportOptions {
  connection: RedisConnection;
  prefix?: string;
  responseTimeoutMs: number;
}

interface Waiter {
  resolve(results: ItemResult[]): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * A batch becomes one `policy-evaluate` job; the worker PUBLISHes the results on this dispatcher's
 * own channel, so a reply crosses Redis once and reaches only the process that waits for it (see
 * src/engine/README.md for the measurements behind this choice).
 */
export function createRedisBatchTransport(options: RedisBatchTransportOptions): BatchTransport {
  const replyTo = replyChannelName(randomUUID(), options.prefix);
  const queueClient = createRedisClient(options.connection, 'policy-evaluate-dispatch');
  const subscriber = createRedisClient(options.connection, 'policy-evaluate-dispatch-replies');
  const queue = new Queue<PolicyEvaluateJobData>(QUEUE_NAMES.policyEvaluate, {
    connection: queueClient,
    prefix: queuePrefix(QUEUE_NAMES.policyEvaluate, options.prefix),
  });
  const waiters = new Map<string, Waiter>();
  let closed = false;

  queue.on('error', () => {
    // Connection errors reach callers as EvaluationQueueError or NoWorkerAvailableError.
  });
  subscriber.on('error', () => {});
  subscriber.on('message', (_channel: string, message: string) => {
    let reply: PolicyEvaluateReply | null;
    try {
      reply = JSON.parse(message) as PolicyEvaluateReply | null;
    } catch {
      return;
    }
    if (reply === null || typeof reply !== 'object') return;
    const waiter = waiters.get(reply.batchId);
    if (!waiter) return; // already timed out
    waiters.delete(reply.batchId);
    clearTimeout(waiter.timer);
    if ('results' in reply) waiter.resolve(reply.results);
    else waiter.reject(new EvaluationWorkerError(`evaluation worker failed: ${reply.error}`));
  });
  const subscribed = subscriber.subscribe(replyTo);
  // Surfaces through send() instead of as an unhandled rejection.
  subscribed.catch(() => {});

  return {
    send(items) {
      if (closed) return Promise.reject(new DispatcherClosedError());
      return new Promise<ItemResult[]>((resolve, reject) => {
        const batchId = randomUUID();
        const added = subscribed.then(() => queue.add('evaluate', toJobData(batchId, replyTo, items), jobOptions(batchId)));
        // Armed before anything touches Redis, so an unreachable Redis cannot make a caller hang either.
        const timer = setTimeout(() => {
          if (!waiters.delete(batchId)) return;
          reject(new NoWorkerAvailableError(options.responseTimeoutMs));
          // Nobody waits any more: drop the job if no worker has taken it yet (once it exists).
          added.then(() => queue.remove(batchId)).catch(() => {});
        }, options.responseTimeoutMs);
        waiters.set(batchId, { resolve, reject, timer });
        added.catch((error: unknown) => {
          if (!waiters.delete(batchId)) return;
          clearTimeout(timer);
          reject(new EvaluationQueueError(error));
        });
      });
    },
    async close() {
      closed = true;
      for (const [batchId, waiter] of waiters) {
        clearTimeout(waiter.timer);
        waiter.reject(new DispatcherClosedError());
        waiters.delete(batchId);
      }
      await queue.close().catch(() => {});
      await Promise.allSettled([subscriber.quit(), queueClient.quit()]);
    },
  };
}

function toJobData(batchId: string, replyTo: string, items: readonly EvaluationItem[]): PolicyEvaluateJobData {
  const sources: string[] = [];
  const indexes = new Map<string, number>();
  return {
    batchId,
    replyTo,
    sources,
    items: items.map((item) => {
      let sourceIndex = indexes.get(item.source);
      if (sourceIndex === undefined) {
        sourceIndex = sources.push(item.source) - 1;
        indexes.set(item.source, sourceIndex);
      }
      return { sourceIndex, locale: item.locale, functionName: item.functionName, context: item.context ?? null, trace: item.trace === true };
    }),
  };
}

function jobOptions(batchId: string) {
  return {
    jobId: batchId,
    // The caller gives up after its timeout, so a retry would only produce an answer nobody reads.
    attempts: 1,
    removeOnComplete: true,
    removeOnFail: { age: 24 * 3600, count: 1000 },
  };
}
