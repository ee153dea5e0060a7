import type { Queue } from 'bullmq';
import type { ServiceMetrics } from './service-metrics.js';

const STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized'] as const;

/**
 * Jobs per queue and state, read from Redis when Prometheus scrapes (the same in every process).
 * While Redis is away the series are left out and the failure counted: every other metric, the
 * ones an outage needs most, still comes through.
 */
export function observeQueueDepths(metrics: ServiceMetrics, queues: readonly Queue[]): void {
  metrics.gaugeOnScrape('policy_engine_queue_jobs', `Jobs in each BullMQ queue by state (${STATES.join(', ')})`, ['queue', 'state'], async (set) => {
    await Promise.all(
      queues.map(async (queue) => {
        try {
          const counts = await queue.getJobCounts(...STATES);
          for (const state of STATES) set({ queue: queue.name, state }, counts[state] ?? 0);
        } catch {
          metrics.scrapeErrors.inc({ source: `queue:${queue.name}` });
        }
      }),
    );
  });
}
