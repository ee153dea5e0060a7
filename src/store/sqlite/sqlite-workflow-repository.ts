import type { Database, Statement } from 'better-sqlite3';
import type { WorkflowStatus } from '../../workflows/workflow-replay.js';
import {
  storedBytesOf,
  type StoredWorkflowEvent,
  type UnfinishedWorkflow,
  type WorkflowEvent,
  type WorkflowListItem,
  type WorkflowListQuery,
  type WorkflowRepository,
  type WorkflowSummary,
  type WorkflowUsage,
} from '../../workflows/workflow-store.js';
import { StoreArgumentError } from '../store-argument-error.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { assertUnfinishedPage, assertWorkflowEvents, assertWorkflowRecord, isWorkflowId, normaliseListQuery, normaliseSummary } from '../workflow-store-rules.js';

interface WorkflowRow {
  workflow_id: string;
  tenant_id: string;
  policy_module: string;
  version: number;
  workflow: string;
  context: string;
  actor_id: string;
  started_at: string;
}

interface UnfinishedRow {
  tenant_id: string;
  workflow_id: string;
  summary_seq: number;
}

interface ListRow {
  workflow_id: string;
  policy_module: string;
  workflow: string;
  version: number;
  status: WorkflowStatus;
  current_step: string | null;
  final_result: number | null;
  started_at: string;
  finished_at: string | null;
}

function listItemOf(row: ListRow): WorkflowListItem {
  return {
    workflowId: row.workflow_id,
    policyModule: row.policy_module,
    workflow: row.workflow,
    version: row.version,
    status: row.status,
    currentStep: row.current_step,
    finalResult: row.final_result === null ? null : row.final_result === 1,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/**
 * The list's statements for a query, and their values (the page's then take LIMIT and OFFSET). The
 * tenant (and status) lead, so the rows come from `workflows_by_start` or
 * `workflows_by_status_start` in their order; the module, workflow and time bounds are read from
 * the same index entries, and the count reads nothing else.
 */
export function workflowListSql(tenantId: string, query: WorkflowListQuery): { pageSql: string; countSql: string; values: unknown[] } {
  const clauses = ['tenant_id = ?'];
  const values: unknown[] = [tenantId];
  const add = (clause: string, value: unknown) => {
    clauses.push(clause);
    values.push(value);
  };
  if (query.status !== undefined) add('status = ?', query.status);
  if (query.startedFrom !== undefined) add('started_at >= ?', query.startedFrom);
  if (query.startedBefore !== undefined) add('started_at < ?', query.startedBefore);
  if (query.policyModule !== undefined) add('policy_module = ?', query.policyModule);
  if (query.workflow !== undefined) add('workflow = ?', query.workflow);
  const where = clauses.join(' AND ');
  // Named, not left to the planner: without statistics it may take the tenant's whole date range
  // over the status's part of it.
  const from = `workflows INDEXED BY ${query.status === undefined ? 'workflows_by_start' : 'workflows_by_status_start'}`;
  return {
    pageSql: `SELECT workflow_id, policy_module, workflow, version, status, current_step, final_result, started_at, finished_at FROM ${from}
      WHERE ${where} ORDER BY started_at DESC, workflow_id DESC LIMIT ? OFFSET ?`,
    countSql: `SELECT count(*) AS total FROM ${from} WHERE ${where}`,
    values,
  };
}

interface UsageRow {
  started: number;
  finished: number;
  stored_bytes: number;
}

interface EventRow {
  sequence: number;
  event_type: string;
  payload: string;
  occurred_at: string;
}

function eventOf(row: EventRow): StoredWorkflowEvent {
  return { sequence: row.sequence, eventType: row.event_type, payload: JSON.parse(row.payload) as Record<string, unknown>, occurredAt: row.occurred_at };
}

/**
 * Appends run the predecessor check and the inserts in one IMMEDIATE transaction. Every write also
 * counts what it stored in `workflow_usage`, in the same transaction.
 */
export function createSqliteWorkflowRepository(db: Database): WorkflowRepository {
  const insertWorkflow = db.prepare(
    `INSERT OR IGNORE INTO workflows (workflow_id, tenant_id, policy_module, version, workflow, context, actor_id, started_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const selectWorkflow = db.prepare<[string], WorkflowRow>('SELECT * FROM workflows WHERE workflow_id = ?');
  const exists = db.prepare<[string, string, number], { one: number }>(
    'SELECT 1 AS one FROM workflow_events WHERE tenant_id = ? AND workflow_id = ? AND sequence = ?',
  );
  const insertEvent = db.prepare(
    'INSERT OR IGNORE INTO workflow_events (tenant_id, workflow_id, sequence, event_type, payload, occurred_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const selectEvents = db.prepare<[string, string, number, number], EventRow>(
    `SELECT sequence, event_type, payload, occurred_at FROM workflow_events
     WHERE tenant_id = ? AND workflow_id = ? AND sequence >= ? ORDER BY sequence LIMIT ?`,
  );

  const selectLastEvent = db.prepare<[string, string], EventRow>(
    `SELECT sequence, event_type, payload, occurred_at FROM workflow_events
     WHERE tenant_id = ? AND workflow_id = ? ORDER BY sequence DESC LIMIT 1`,
  );

  const markFinished = db.prepare(
    'UPDATE workflows SET finished_at = ? WHERE workflow_id = ? AND tenant_id = ? AND finished_at IS NULL',
  );
  // Both served by the partial index `workflows_unfinished`, which holds only unfinished workflows.
  const selectUnfinished = db.prepare<[string, number], UnfinishedRow>(
    'SELECT tenant_id, workflow_id, summary_seq FROM workflows WHERE finished_at IS NULL AND workflow_id > ? ORDER BY workflow_id LIMIT ?',
  );
  // An older summary never overwrites a newer one.
  const updateSummary = db.prepare(
    `UPDATE workflows SET status = ?, current_step = ?, final_result = ?, summary_seq = ?
     WHERE workflow_id = ? AND tenant_id = ? AND summary_seq < ?`,
  );
  /** A statement per filter combination (32 at most), prepared once. */
  const listStatements = new Map<string, { page: Statement<unknown[], ListRow>; count: Statement<unknown[], { total: number }> }>();
  const listStatementsFor = (pageSql: string, countSql: string) => {
    let statements = listStatements.get(pageSql);
    if (statements === undefined) {
      statements = { page: db.prepare<unknown[], ListRow>(pageSql), count: db.prepare<unknown[], { total: number }>(countSql) };
      listStatements.set(pageSql, statements);
    }
    return statements;
  };

  const addUsage = db.prepare(
    `INSERT INTO workflow_usage (tenant_id, started, finished, stored_bytes) VALUES (?, ?, ?, ?)
     ON CONFLICT (tenant_id) DO UPDATE SET started = started + excluded.started, finished = finished + excluded.finished,
       stored_bytes = stored_bytes + excluded.stored_bytes`,
  );
  const selectUsage = db.prepare<[string], UsageRow>('SELECT started, finished, stored_bytes FROM workflow_usage WHERE tenant_id = ?');

  const create = db.transaction((tenantId: string, values: unknown[], context: string): boolean => {
    if (insertWorkflow.run(...values).changes !== 1) return false;
    addUsage.run(tenantId, 1, 0, storedBytesOf(context));
    return true;
  });

  const saveSummary = (workflowId: string, tenantId: string, summary: WorkflowSummary): boolean => {
    const finalResult = summary.finalResult === null ? null : Number(summary.finalResult);
    return updateSummary.run(summary.status, summary.currentStep, finalResult, summary.seq, workflowId, tenantId, summary.seq).changes === 1;
  };

  const finish = db.transaction((at: string, workflowId: string, tenantId: string, summary: WorkflowSummary | undefined): void => {
    if (summary !== undefined) saveSummary(workflowId, tenantId, summary);
    if (markFinished.run(at, workflowId, tenantId).changes === 1) addUsage.run(tenantId, 0, 1, 0);
  });

  const append = db.transaction((tenantId: string, workflowId: string, events: readonly WorkflowEvent[]): number => {
    const owner = selectWorkflow.get(workflowId);
    if (owner === undefined || owner.tenant_id !== tenantId) throw new StoreArgumentError(`workflow \`${workflowId}\` does not exist`);
    const first = events[0]!;
    if (first.sequence > 1 && exists.get(tenantId, workflowId, first.sequence - 1) === undefined) {
      throw new StoreArgumentError(`event ${first.sequence - 1} of workflow \`${workflowId}\` does not exist`);
    }
    let inserted = 0;
    let bytes = 0;
    for (const event of events) {
      const payload = JSON.stringify(event.payload);
      const result = insertEvent.run(tenantId, workflowId, event.sequence, event.eventType, payload, normaliseInstant(event.occurredAt, 'occurredAt'));
      if (result.changes === 0) break;
      inserted += 1;
      bytes += storedBytesOf(payload);
    }
    if (inserted > 0) addUsage.run(tenantId, 0, 0, bytes);
    return inserted;
  });

  return {
    async create(tenantId, record) {
      assertTenantId(tenantId);
      assertWorkflowRecord(record);
      const context = JSON.stringify(record.context);
      const values = [
        record.workflowId, tenantId, record.policyModule, record.version, record.workflow,
        context, record.actorId, normaliseInstant(record.startedAt, 'startedAt'),
      ];
      return create.immediate(tenantId, values, context);
    },
    async get(tenantId, workflowId) {
      assertTenantId(tenantId);
      if (!isWorkflowId(workflowId)) return null;
      const row = selectWorkflow.get(workflowId);
      if (row === undefined || row.tenant_id !== tenantId) return null;
      return {
        workflowId: row.workflow_id,
        policyModule: row.policy_module,
        version: row.version,
        workflow: row.workflow,
        context: JSON.parse(row.context) as Record<string, unknown>,
        actorId: row.actor_id,
        startedAt: row.started_at,
      };
    },
    async ownerOf(workflowId) {
      if (!isWorkflowId(workflowId)) return null;
      return selectWorkflow.get(workflowId)?.tenant_id ?? null;
    },
    async append(tenantId, workflowId, events) {
      assertTenantId(tenantId);
      if (events.length === 0) return 0;
      assertWorkflowEvents(events);
      if (!isWorkflowId(workflowId)) throw new StoreArgumentError(`workflow \`${workflowId}\` does not exist`);
      return append.immediate(tenantId, workflowId, events);
    },
    async events(tenantId, workflowId, fromSeq, limit) {
      assertTenantId(tenantId);
      if (!isWorkflowId(workflowId)) return [];
      return selectEvents.all(tenantId, workflowId, Math.max(1, fromSeq), limit).map(eventOf);
    },
    async lastEvent(tenantId, workflowId) {
      assertTenantId(tenantId);
      if (!isWorkflowId(workflowId)) return null;
      const row = selectLastEvent.get(tenantId, workflowId);
      return row === undefined ? null : eventOf(row);
    },
    async markFinished(tenantId, workflowId, finishedAt, summary) {
      assertTenantId(tenantId);
      const at = normaliseInstant(finishedAt, 'finishedAt');
      const normalised = summary === undefined ? undefined : normaliseSummary(summary);
      if (!isWorkflowId(workflowId)) return;
      finish.immediate(at, workflowId, tenantId, normalised);
    },
    async saveSummary(tenantId, workflowId, summary) {
      assertTenantId(tenantId);
      const normalised = normaliseSummary(summary);
      if (!isWorkflowId(workflowId)) return false;
      return saveSummary(workflowId, tenantId, normalised);
    },
    async list(tenantId, query) {
      assertTenantId(tenantId);
      const checked = normaliseListQuery(query);
      const { pageSql, countSql, values } = workflowListSql(tenantId, checked);
      const { page, count } = listStatementsFor(pageSql, countSql);
      const items = page.all(...values, checked.limit, checked.offset).map(listItemOf);
      return { items, total: count.get(...values)!.total };
    },
    async listUnfinished(afterWorkflowId, limit) {
      assertUnfinishedPage(afterWorkflowId, limit);
      // '' sorts before every id: the first page.
      return selectUnfinished
        .all(afterWorkflowId ?? '', limit)
        .map((row): UnfinishedWorkflow => ({ tenantId: row.tenant_id, workflowId: row.workflow_id, summarySeq: row.summary_seq }));
    },
    async usage(tenantId): Promise<WorkflowUsage> {
      assertTenantId(tenantId);
      const row = selectUsage.get(tenantId);
      return row === undefined ? { unfinished: 0, storedBytes: 0 } : { unfinished: Math.max(0, row.started - row.finished), storedBytes: row.stored_bytes };
    },
  };
}
