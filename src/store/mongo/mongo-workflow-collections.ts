import type { Db, IndexDescription } from 'mongodb';
import type { WorkflowStatus } from '../../workflows/workflow-replay.js';

/** Collections of workflows and their event logs. */
export const WORKFLOW_COLLECTIONS = {
  workflows: 'workflows',
  events: 'workflow_events',
  usage: 'workflow_usage',
} as const;

/** `_id` is the workflow id, unique across tenants (so another tenant's workflow is told apart). */
export interface WorkflowDocument {
  _id: string;
  tenantId: string;
  policyModule: string;
  version: number;
  workflow: string;
  /** JSON text: the input comes back exactly as given. */
  context: string;
  actorId: string;
  startedAt: string;
  /**
   * When the log ended (its terminal event); null while it runs or waits. Absent on documents
   * stored before the field existed: they count as unfinished until the resume sweep reads their
   * log and marks the ended ones.
   */
  finishedAt?: string | null;
  /**
   * The summary the list shows (see WorkflowSummary): the state of the log replayed up to
   * `summarySeq`. Absent on documents stored before it existed, until the backfill at start-up
   * (mongo-workflow-summaries-backfill.ts) or a writer sets it.
   */
  status?: WorkflowStatus;
  currentStep?: string | null;
  finalResult?: boolean | null;
  summarySeq?: number;
}

/** `_id` is `<tenant>:<workflow>:<sequence>`: a repeated sequence is a duplicate key on every backend. */
export interface WorkflowEventDocument {
  _id: string;
  tenantId: string;
  workflowId: string;
  sequence: number;
  eventType: string;
  payload: string;
  occurredAt: string;
}

/**
 * `_id` is `<tenant>:<writer>`: one writer's share of a tenant's workflow counters (see
 * mongo-workflow-usage.ts). The tenant's unfinished workflows are Σ started − Σ finished.
 */
export interface WorkflowUsageDocument {
  _id: string;
  tenantId: string;
  writer: string;
  started: number;
  finished: number;
  storedBytes: number;
}

export function workflowEventId(tenantId: string, workflowId: string, sequence: number): string {
  return `${tenantId}:${workflowId}:${sequence}`;
}

export const WORKFLOW_INDEXES: Record<string, IndexDescription[]> = {
  // `{finishedAt: null}` (null or absent) then an `_id` range: the pages of unfinished workflows.
  [WORKFLOW_COLLECTIONS.workflows]: [
    { key: { finishedAt: 1, _id: 1 }, name: 'finished_id' },
    // The list's pages, newest start first, with or without a status. The module and workflow name
    // ride along (as in SQLite's indexes), so their filters and the count are answered from the
    // index entries, not from the documents with their contexts.
    { key: { tenantId: 1, startedAt: -1, _id: -1, policyModule: 1, workflow: 1 }, name: 'tenant_started' },
    { key: { tenantId: 1, status: 1, startedAt: -1, _id: -1, policyModule: 1, workflow: 1 }, name: 'tenant_status_started' },
  ],
  [WORKFLOW_COLLECTIONS.events]: [{ key: { tenantId: 1, workflowId: 1, sequence: 1 }, name: 'tenant_workflow_sequence_unique', unique: true }],
  [WORKFLOW_COLLECTIONS.usage]: [{ key: { tenantId: 1 }, name: 'tenant' }],
};

/** Creates the indexes (idempotent), one per command as ensureIndexes does for FerretDB's sake. */
export async function ensureWorkflowIndexes(db: Db): Promise<void> {
  for (const [collection, indexes] of Object.entries(WORKFLOW_INDEXES)) {
    for (const index of indexes) await db.collection(collection).createIndexes([index]);
  }
}
