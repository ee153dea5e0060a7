import type { Db, IndexDescription } from 'mongodb';

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
  [WORKFLOW_COLLECTIONS.workflows]: [{ key: { finishedAt: 1, _id: 1 }, name: 'finished_id' }],
  [WORKFLOW_COLLECTIONS.events]: [{ key: { tenantId: 1, workflowId: 1, sequence: 1 }, name: 'tenant_workflow_sequence_unique', unique: true }],
  [WORKFLOW_COLLECTIONS.usage]: [{ key: { tenantId: 1 }, name: 'tenant' }],
};

/** Creates the indexes (idempotent), one per command as ensureIndexes does for FerretDB's sake. */
export async function ensureWorkflowIndexes(db: Db): Promise<void> {
  for (const [collection, indexes] of Object.entries(WORKFLOW_INDEXES)) {
    for (const index of indexes) await db.collection(collection).createIndexes([index]);
  }
}
