import { Queue } from 'bullmq';
import type { RedisClient } from './redis-connection.js';
import { QUEUE_NAMES, queuePrefix } from './queue-names.js';

/**
 * A handle on every queue of the service, for looking at them (metrics, the operators' dashboard):
 * not for adding jobs, which each queue's own producer does.
 */
export function openServiceQueues(connection: RedisClient, prefix: string, onError: (error: Error) => void): Queue[] {
  return Object.values(QUEUE_NAMES)
    .filter((name) => name !== QUEUE_NAMES.auditAppend)
    .map((name) => {
      const queue = new Queue(name, { connection, prefix: queuePrefix(name, prefix) });
      // Without a listener BullMQ prints each connection error to the console, outside the log.
      queue.on('error', onError);
      return queue;
    });
}
