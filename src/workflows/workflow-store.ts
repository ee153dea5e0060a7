import type { StoredWorkflowEvent, WorkflowEvent } from './workflow-events.js';
import type { WorkflowStatus } from './workflow-replay.js';

/**
 * A started workflow: what it runs and with which input. Stored once, never changed (beside it the
 * store keeps when the workflow finished, see `markFinished`, and its summary, see `saveSummary`).
 */
export interface WorkflowRecord {
  /** Opaque and unique across tenants (the events endpoint tells another tenant's apart: 403). */
  workflowId: string;
  policyModule: string;
  /** The module version pinned at start; 0 for the built-in module. */
  version: number;
  /** The workflow's name in the module. */
  workflow: string;
  /** The workflow's parameters by name. */
  context: Record<string, unknown>;
  actorId: string;
  startedAt: string;
}

/** A workflow's log: the service appends WorkflowEvents; the store keeps and answers any well-formed entry. */
export type { StoredWorkflowEvent, WorkflowEvent };

/**
 * Workflows and their event logs. A workflow's progress is only its log: appends are inserts into
 * the unique (tenant, workflow, sequence), so two writers can never store the same sequence and a
 * writer that lost learns it from the count.
 */
export interface WorkflowRepository {
  /** Stores a new workflow; false when its id is taken (nothing changes). */
  create(tenantId: string, record: WorkflowRecord): Promise<boolean>;
  get(tenantId: string, workflowId: string): Promise<WorkflowRecord | null>;
  /**
   * The tenant that owns the workflow, or null when no tenant does. The only read across tenants:
   * the interface answers 403, not 404, for another tenant's workflow.
   */
  ownerOf(workflowId: string): Promise<string | null>;
  /**
   * Inserts events with consecutive sequences in order, stopping at the first sequence that exists
   * (another writer won); returns how many were inserted. Throws StoreArgumentError when the first
   * does not follow the stored log (its predecessor is missing) or the workflow is unknown.
   */
  append(tenantId: string, workflowId: string, events: readonly WorkflowEvent[]): Promise<number>;
  /** Events with sequence ≥ fromSeq, ascending, at most `limit`. */
  events(tenantId: string, workflowId: string, fromSeq: number, limit: number): Promise<StoredWorkflowEvent[]>;
  /** The event of the highest sequence, or null when the log is empty (or not the tenant's): one indexed read, whatever the log's length. */
  lastEvent(tenantId: string, workflowId: string): Promise<StoredWorkflowEvent | null>;
  /**
   * Notes that the workflow's log ended (a terminal event at `finishedAt`), so `listUnfinished`
   * leaves it out, and keeps `summary` (the ended log's, see `saveSummary`) when given, in the same
   * write as the mark. The first mark stays (a later call keeps only a newer summary); an unknown
   * workflow or another tenant's is a no-op.
   */
  markFinished(tenantId: string, workflowId: string, finishedAt: string, summary?: WorkflowSummary): Promise<void>;
  /**
   * Keeps the summary the list shows, unless the stored one reflects the same or a later sequence
   * (an older summary never overwrites a newer one); returns whether it was kept. An unknown
   * workflow or another tenant's is a no-op.
   */
  saveSummary(tenantId: string, workflowId: string, summary: WorkflowSummary): Promise<boolean>;
  /**
   * The tenant's workflows matching the query, newest start first (ties: id descending), from its
   * own index range: other tenants' workflows are never read.
   */
  list(tenantId: string, query: WorkflowListQuery): Promise<WorkflowListPage>;
  /**
   * Workflows of every tenant not marked finished, by ascending id after `afterWorkflowId` (null:
   * from the first), at most `limit`: a page of an indexed range, however many have finished. A
   * read across tenants, for the sweep that resumes workflows whose jobs were lost.
   */
  listUnfinished(afterWorkflowId: string | null, limit: number): Promise<UnfinishedWorkflow[]>;
  /**
   * What the tenant's workflows hold, for its quotas: counters kept with the writes above, so a
   * read never walks workflows or events.
   */
  usage(tenantId: string): Promise<WorkflowUsage>;
}

/** A tenant's workflows as its quotas count them. */
export interface WorkflowUsage {
  /** Workflows created and not marked finished. */
  unfinished: number;
  /** Bytes of every stored context and event payload as JSON text (UTF-8), finished workflows included. */
  storedBytes: number;
}

/** A workflow not marked finished, as `listUnfinished` names it. */
export interface UnfinishedWorkflow {
  tenantId: string;
  workflowId: string;
  /** The sequence its stored summary reflects (0: none yet), so the sweep finds a summary behind the log. */
  summarySeq: number;
}

/**
 * What the list shows of a workflow's state, kept beside its record by whoever appended to its log
 * (derived in one place: `summaryOf`, workflow-summary.ts).
 */
export interface WorkflowSummary {
  status: WorkflowStatus;
  currentStep: string | null;
  finalResult: boolean | null;
  /** The terminal event's time; null until the workflow ended. */
  finishedAt: string | null;
  /** The log sequence the summary reflects: the last event replayed. */
  seq: number;
}

/** Which of a tenant's workflows a page lists. */
export interface WorkflowListQuery {
  status?: WorkflowStatus;
  policyModule?: string;
  /** The workflow's declared name. */
  workflow?: string;
  /** Inclusive lower bound on startedAt. */
  startedFrom?: string;
  /** Exclusive upper bound on startedAt. */
  startedBefore?: string;
  offset: number;
  limit: number;
}

/** A workflow as the list shows it: its record without the context, and its summary. */
export interface WorkflowListItem {
  workflowId: string;
  policyModule: string;
  workflow: string;
  version: number;
  status: WorkflowStatus;
  currentStep: string | null;
  finalResult: boolean | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface WorkflowListPage {
  items: WorkflowListItem[];
  /** Every workflow matching the query, whatever the offset and limit. */
  total: number;
}

/** What a stored context or event payload counts against its tenant's stored bytes: its JSON text in UTF-8. */
export function storedBytesOf(json: string): number {
  return Buffer.byteLength(json, 'utf8');
}
