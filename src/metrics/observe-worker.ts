import type { Job, Worker } from 'bullmq';
import type { ServiceMetrics } from './service-metrics.js';

/** Times every job a BullMQ worker of this process finishes: its wait in the queue and its processing. */
export function observeWorker(worker: Worker, metrics: ServiceMetrics): void {
  const queue = worker.name;
  const observe = (job: Job | undefined, outcome: 'completed' | 'failed') => {
    metrics.jobsFinished.inc({ queue, outcome });
    if (job?.processedOn === undefined) return;
    metrics.jobWait.observe({ queue }, Math.max(0, job.processedOn - job.timestamp) / 1000);
    if (job.finishedOn !== undefined) metrics.jobProcessing.observe({ queue }, Math.max(0, job.finishedOn - job.processedOn) / 1000);
  };
  worker.on('completed', (job) => observe(job, 'completed'));
  worker.on('failed', (job) => observe(job, 'failed'));
}
