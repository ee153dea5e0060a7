import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_NAMES, queuePrefix } from './queue-names.js';

/**
 * A handle on every queue of the service, for looking at them (metrics, the operators' dashboard):
 * not for adding jobs, which each queue's own producer does.
 */
export function openServiceQueues(connection: Redis, prefix: string): Queue[] {
  return Object.values(QUEUE_NAMES)
    .filter((name) => name !== QUEUE_NAMES.auditAppend)
    .map((name) => new Queue(name, { connection, prefix: queuePrefix(name, prefix) }));
}
