import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every Prometheus metric of a process, on its own registry (one per started service, so tests
 * can start several in one process). Names and labels are documented in docs/operations.md.
 * Label values are bounded: routes are the router's templates, codes the service's own.
 */
export interface ServiceMetrics {
  readonly registry: Registry;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly evaluations: Counter<'kind' | 'outcome' | 'code'>;
  readonly auditAppendLag: Histogram<never>;
  readonly auditLinkLag: Histogram<never>;
  readonly auditRecords: Counter<'event_type'>;
  readonly anomalyEvents: Counter<'type' | 'status'>;
  readonly workflowEvents: Counter<'event_type'>;
  readonly jobWait: Histogram<'queue'>;
  readonly jobProcessing: Histogram<'queue'>;
  readonly jobsFinished: Counter<'queue' | 'outcome'>;
  readonly scrapeErrors: Counter<'source'>;
  /** Reads a gauge's value when Prometheus scrapes (queue depth, thread utilisation). */
  gaugeOnScrape(name: string, help: string, labelNames: readonly string[], read: (set: (labels: Record<string, string>, value: number) => void) => Promise<void> | void): void;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createServiceMetrics(defaultLabels: Record<string, string> = {}): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels(defaultLabels);
  // Process CPU, memory, event-loop lag and GC, prefixed like the rest.
  collectDefaultMetrics({ register: registry, prefix: 'policy_engine_' });
  const registers = [registry];
  return {
    registry,
    httpDuration: new Histogram({
      name: 'policy_engine_http_request_duration_seconds',
      help: 'HTTP requests by method, route template and status: time from arrival to the answer',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    evaluations: new Counter({
      name: 'policy_engine_evaluations_total',
      help: 'Evaluations answered, by kind (source, stored), outcome (ok, error) and error code (PL…, ERR_…; empty when ok)',
      labelNames: ['kind', 'outcome', 'code'],
      registers,
    }),
    auditAppendLag: new Histogram({
      name: 'policy_engine_audit_append_lag_seconds',
      help: 'Time from an audit append to the record being durably stored (before the answer leaves)',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    auditLinkLag: new Histogram({
      name: 'policy_engine_audit_link_lag_seconds',
      help: 'Time from an audit record being stored to its link into the tenant chain, observed by the linking process',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    auditRecords: new Counter({ name: 'policy_engine_audit_records_total', help: 'Audit records stored, by event type', labelNames: ['event_type'], registers }),
    anomalyEvents: new Counter({
      name: 'policy_engine_anomalies_total',
      help: 'Anomalies detected (status OPEN) and status changes, by anomaly type and the status reached',
      labelNames: ['type', 'status'],
      registers,
    }),
    workflowEvents: new Counter({
      name: 'policy_engine_workflow_events_total',
      help: 'Workflow events appended, by type (WORKFLOW_STARTED, WORKFLOW_COMPLETED, WORKFLOW_FAILED, WORKFLOW_CANCELLED, …)',
      labelNames: ['event_type'],
      registers,
    }),
    jobWait: new Histogram({
      name: 'policy_engine_queue_job_wait_seconds',
      help: 'Time a job waited in its BullMQ queue before a worker took it',
      labelNames: ['queue'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    jobProcessing: new Histogram({
      name: 'policy_engine_queue_job_processing_seconds',
      help: 'Time a worker spent on a job, from taking it to finishing it',
      labelNames: ['queue'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    jobsFinished: new Counter({
      name: 'policy_engine_queue_jobs_finished_total',
      help: 'Jobs finished by this process, by queue and outcome (completed, failed)',
      labelNames: ['queue', 'outcome'],
      registers,
    }),
    scrapeErrors: new Counter({
      name: 'policy_engine_metrics_scrape_errors_total',
      help: 'Values a scrape could not read (a queue while Redis is away); their series are left out',
      labelNames: ['source'],
      registers,
    }),
    gaugeOnScrape(name, help, labelNames, read) {
      new Gauge({
        name,
        help,
        labelNames: [...labelNames],
        registers,
        async collect() {
          this.reset();
          await read((labels, value) => this.set(labels, value));
        },
      });
    },
  };
}
