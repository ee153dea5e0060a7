import type { WorkflowRepository } from './workflow-store.js';

/**
 * The workflow store telling of every event it stored, with the highest sequence: the one place
 * appends of every role go through, so a stream of the workflow in any process hears of them.
 */
export function announcedWorkflowRepository(
  repository: WorkflowRepository,
  onAppended: (tenantId: string, workflowId: string, lastSequence: number) => void,
): WorkflowRepository {
  return {
    ...repository,
    async append(tenantId, workflowId, events) {
      const inserted = await repository.append(tenantId, workflowId, events);
      // Only what this call stored: a writer that lost the race announces nothing.
      if (inserted > 0) onAppended(tenantId, workflowId, events[inserted - 1]!.sequence);
      return inserted;
    },
  };
}
