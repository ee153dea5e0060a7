import type { WorkflowSignature } from '../language/index.js';
import type { StoredWorkflowEvent } from './workflow-events.js';
import { isTerminal, WorkflowReplay, type WorkflowState } from './workflow-replay.js';
import type { WorkflowRepository, WorkflowSummary } from './workflow-store.js';

/**
 * The summary the list shows of a replayed state: the one place it is derived, so the runner, the
 * service and the resume sweep always store the same summary of the same log.
 */
export function summaryOf(state: WorkflowState): WorkflowSummary {
  return {
    status: state.status,
    currentStep: state.currentStep,
    finalResult: state.finalResult,
    finishedAt: isTerminal(state.status) ? state.endedAt : null,
    seq: state.nextSequence - 1,
  };
}

/** No steps: what a terminal event alone tells needs none. */
const NO_DEFINITION: WorkflowSignature = { name: '', params: [], steps: [] };

/**
 * The summary of a log that ended, from its terminal event alone (for the resume sweep, which
 * reads only the last event and no definition): a terminal event decides the status, the final
 * result and that no step is current, whatever came before it.
 */
export function endedSummary(terminal: StoredWorkflowEvent): WorkflowSummary {
  return summaryOf(new WorkflowReplay(NO_DEFINITION).apply([terminal]).state);
}

/**
 * Stores a summary after an append (or a repair): with the finished mark once the log ended, so an
 * ended workflow's summary and mark are written by the same call, the summary first.
 */
export async function storeSummary(
  workflows: Pick<WorkflowRepository, 'saveSummary' | 'markFinished'>,
  tenantId: string,
  workflowId: string,
  summary: WorkflowSummary,
): Promise<void> {
  if (summary.finishedAt !== null) await workflows.markFinished(tenantId, workflowId, summary.finishedAt, summary);
  else await workflows.saveSummary(tenantId, workflowId, summary);
}
