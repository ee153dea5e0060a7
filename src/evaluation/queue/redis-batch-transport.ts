import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { createRedisClient, QUEUE_NAMES, queuePrefix, type BatchTransport, type DeliverResult, type RedisConnection } from '../../jobs/index.js';
import { DispatcherClosedError, EvaluationQueueError, EvaluationWorkerError, NoWorkerAvailableError } from '../dispatch-errors.js';
import {
  cancelChannelName,
  replyChannelName,
  type PolicyEvaluateCancel,
  type PolicyEvaluateJobData,
  type PolicyEvaluateReply,
} from './policy-evaluate-job.js';

export interface RedisBatchTransportOptions {
  connection: RedisConnection;
  prefix?: string;
  /** A batch without a complete answer after this long rejects with NoWorkerAvailableError. */
  responseTimeoutMs: number;
  /**
   * A BullMQ priority for this transport's jobs (1 = highest of the prioritized): workers take every
   * job without one first, so prioritized batches (shadow copies) only use what answers leave idle.
   */
  priority?: number;
}

interface Waiter {
  delivered: boolean[];
  remaining: number;
  deliver: DeliverResult;
  resolve(): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * A batch becomes one `policy-evaluate` job; the worker PUBLISHes the results on this dispatcher's
 * own channel, so a reply crosses Redis once and reaches only the process that waits for it (see
 * src/engine/README.md for the measurements behind this choice). Items nobody waits for any more
 * are announced on the cancel channel, so workers do not spend threads on them.
 */
export function createRedisBatchTransport(options: RedisBatchTransportOptions): BatchTransport {
  const replyTo = replyChannelName(randomUUID(), options.prefix);
  const cancelChannel = cancelChannelName(options.prefix);
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
    if (!waiter) return; // already timed out or cancelled
    if ('error' in reply) {
      finish(reply.batchId, waiter);
      waiter.reject(new EvaluationWorkerError(`evaluation worker failed: ${reply.error}`));
      return;
    }
    // A message of another shape (not from a worker of this version) must not throw in the listener.
    if (!Array.isArray(reply.results)) return;
    for (const entry of reply.results) {
      if (!Array.isArray(entry)) continue;
      const [position, result] = entry;
      if (!Number.isInteger(position) || position < 0 || position >= waiter.delivered.length || waiter.delivered[position]) continue;
      waiter.delivered[position] = true;
      waiter.remaining--;
      waiter.deliver(position, result);
    }
    if (waiter.remaining === 0) {
      finish(reply.batchId, waiter);
      waiter.resolve();
    }
  });
  const subscribed = subscriber.subscribe(replyTo);
  // Surfaces through send() instead of as an unhandled rejection.
  subscribed.catch(() => {});

  function finish(batchId: string, waiter: Waiter): void {
    waiters.delete(batchId);
    clearTimeout(waiter.timer);
  }

  function announceCancel(batchId: string, positions?: readonly number[]): void {
    const message: PolicyEvaluateCancel = positions === undefined ? { batchId } : { batchId, positions: [...positions] };
    queueClient.publish(cancelChannel, JSON.stringify(message)).catch(() => {});
  }

  return {
    send(batch, deliver) {
      const batchId = randomUUID();
      let added: Promise<unknown> = Promise.resolve();
      const done = new Promise<void>((resolve, reject) => {
        if (closed) return reject(new DispatcherClosedError());
        added = subscribed.then(() =>
          queue.add('evaluate', { batchId, replyTo, batch }, jobOptions(batchId, options.priority)),
        );
        // Armed before anything touches Redis, so an unreachable Redis cannot make a caller hang either.
        const timer = setTimeout(() => {
          if (!waiters.delete(batchId)) return;
          reject(new NoWorkerAvailableError(options.responseTimeoutMs));
          // Nobody waits any more: drop the job if no worker has taken it, and tell any worker that has.
          added.then(() => queue.remove(batchId)).catch(() => {});
          announceCancel(batchId);
        }, options.responseTimeoutMs);
        waiters.set(batchId, {
          delivered: new Array<boolean>(batch.items.length).fill(false),
          remaining: batch.items.length,
          deliver,
          resolve,
          reject,
          timer,
        });
        added.catch((error: unknown) => {
          const waiter = waiters.get(batchId);
          if (!waiter) return;
          finish(batchId, waiter);
          reject(new EvaluationQueueError(error));
        });
      });
      return {
        done,
        cancel(positions) {
          // The batch still completes (cancelled items answer ERR_EVALUATION_CANCELLED at once).
          if (waiters.has(batchId)) announceCancel(batchId, positions);
        },
      };
    },
    async close() {
      closed = true;
      for (const [batchId, waiter] of waiters) {
        finish(batchId, waiter);
        waiter.reject(new DispatcherClosedError());
      }
      await queue.close().catch(() => {});
      await Promise.allSettled([subscriber.quit(), queueClient.quit()]);
    },
  };
}

function jobOptions(batchId: string, priority: number | undefined) {
  return {
    jobId: batchId,
    ...(priority === undefined ? {} : { priority }),
    // The caller gives up after its timeout, so a retry would only produce an answer nobody reads.
    attempts: 1,
    removeOnComplete: true,
    removeOnFail: { age: 24 * 3600, count: 1000 },
  };
}
