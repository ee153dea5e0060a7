import type { Db } from 'mongodb';
import { WORKFLOW_COLLECTIONS, type WorkflowDocument, type WorkflowEventDocument, type WorkflowUsageDocument } from './mongo-workflow-collections.js';
import { isDuplicateKey } from './duplicate-key.js';
import { saveWorkflowSummary } from './mongo-workflow-repository.js';

/**
 * The mark that says the backfill below ran to its end, kept among the usage shares: its empty
 * `tenantId` is no tenant's, so no tenant's counters include it.
 */
const BACKFILLED: WorkflowUsageDocument = { _id: 'summaries-backfilled', tenantId: '', writer: '', started: 0, finished: 0, storedBytes: 0 };

const TERMINAL_STATUS: Record<string, 'COMPLETED' | 'FAILED' | 'CANCELLED'> = {
  WORKFLOW_COMPLETED: 'COMPLETED',
  WORKFLOW_FAILED: 'FAILED',
  WORKFLOW_CANCELLED: 'CANCELLED',
};

/**
 * Gives every workflow stored before summaries existed the summary one event tells, once per
 * database, as SQLite's migration 15 does: an ended log's from its terminal event, a log ending with
 * SIGNAL_AWAITED waits at that event's step; any other gets summary 0 (RUNNING), which the resume
 * sweep finds behind its log and has a run store. Writers running meanwhile write over a missing
 * summary as over an older one, and this writes only where none is; a backfill stopped halfway
 * runs again at the next start.
 */
export async function backfillWorkflowSummaries(db: Db): Promise<void> {
  const marks = db.collection<WorkflowUsageDocument>(WORKFLOW_COLLECTIONS.usage);
  if ((await marks.findOne({ _id: BACKFILLED._id }, { projection: { _id: 1 } })) !== null) return;
  const workflows = db.collection<WorkflowDocument>(WORKFLOW_COLLECTIONS.workflows);
  const events = db.collection<WorkflowEventDocument>(WORKFLOW_COLLECTIONS.events);
  const unsummarised = workflows.find({ summarySeq: { $exists: false } }, { projection: { tenantId: 1 } });
  for await (const { _id: workflowId, tenantId } of unsummarised) {
    const [last] = await events.find({ tenantId, workflowId }).sort({ sequence: -1 }).limit(1).toArray();
    const payload = last === undefined ? {} : (JSON.parse(last.payload) as Record<string, unknown>);
    const ended = last === undefined ? undefined : TERMINAL_STATUS[last.eventType];
    const summary =
      ended !== undefined
        ? { status: ended, currentStep: null, finalResult: ended === 'COMPLETED' ? payload.finalResult === true : null, finishedAt: last!.occurredAt, seq: last!.sequence }
        : last?.eventType === 'SIGNAL_AWAITED' && typeof payload.step === 'string'
          ? { status: 'WAITING' as const, currentStep: payload.step, finalResult: null, finishedAt: null, seq: last.sequence }
          : { status: 'RUNNING' as const, currentStep: null, finalResult: null, finishedAt: null, seq: 0 };
    await saveWorkflowSummary(workflows, { _id: workflowId, summarySeq: { $exists: false } }, summary);
  }
  try {
    await marks.insertOne(BACKFILLED);
  } catch (error) {
    // Another process finished the backfill at the same time.
    if (!isDuplicateKey(error)) throw error;
  }
}
