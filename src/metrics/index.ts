export { createServiceMetrics, type ServiceMetrics } from './service-metrics.js';
export { observedAuditRecorder } from './observed-audit-recorder.js';
export { observedWorkflowRepository } from './observed-workflow-repository.js';
export { observeWorker } from './observe-worker.js';
export { observeQueueDepths } from './queue-depths.js';
export { startMetricsServer } from './metrics-server.js';
