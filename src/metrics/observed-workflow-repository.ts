import type { WorkflowRepository } from '../workflows/index.js';
import type { ServiceMetrics } from './service-metrics.js';

/** The workflow store, counting the events it appends by type (started, completed, failed, …). */
export function observedWorkflowRepository(repository: WorkflowRepository, metrics: ServiceMetrics): WorkflowRepository {
  return {
    create: (tenantId, record) => repository.create(tenantId, record),
    get: (tenantId, workflowId) => repository.get(tenantId, workflowId),
    ownerOf: (workflowId) => repository.ownerOf(workflowId),
    events: (tenantId, workflowId, fromSeq, limit) => repository.events(tenantId, workflowId, fromSeq, limit),
    lastEvent: (tenantId, workflowId) => repository.lastEvent(tenantId, workflowId),
    markFinished: (tenantId, workflowId, finishedAt, summary) => repository.markFinished(tenantId, workflowId, finishedAt, summary),
    saveSummary: (tenantId, workflowId, summary) => repository.saveSummary(tenantId, workflowId, summary),
    list: (tenantId, query) => repository.list(tenantId, query),
    listUnfinished: (afterWorkflowId, limit) => repository.listUnfinished(afterWorkflowId, limit),
    usage: (tenantId) => repository.usage(tenantId),
    async append(tenantId, workflowId, events) {
      const inserted = await repository.append(tenantId, workflowId, events);
      // Only what this call stored: a writer that lost the race counts nothing twice.
      for (const event of events.slice(0, inserted)) metrics.workflowEvents.inc({ event_type: event.eventType });
      return inserted;
    },
  };
}
