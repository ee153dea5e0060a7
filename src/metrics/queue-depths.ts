import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_NAMES, queuePrefix } from '../jobs/index.js';
import type { ServiceMetrics } from './service-metrics.js';

const STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized'] as const;

/** Jobs per queue and state, read from Redis when Prometheus scrapes (the same in every process). */
export function observeQueueDepths(metrics: ServiceMetrics, redis: Redis, prefix: string): void {
  const queues = Object.values(QUEUE_NAMES)
    .filter((name) => name !== QUEUE_NAMES.auditAppend)
    .map((name) => new Queue(name, { connection: redis, prefix: queuePrefix(name, prefix) }));
  metrics.gaugeOnScrape('policy_engine_queue_jobs', `Jobs in each BullMQ queue by state (${STATES.join(', ')})`, ['queue', 'state'], async (set) => {
    await Promise.all(
      queues.map(async (queue) => {
        const counts = await queue.getJobCounts(...STATES);
        for (const state of STATES) set({ queue: queue.name, state }, counts[state] ?? 0);
      }),
    );
  });
}
