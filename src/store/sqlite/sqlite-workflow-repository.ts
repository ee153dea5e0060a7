import type { Database } from 'better-sqlite3';
import {
  storedBytesOf,
  type StoredWorkflowEvent,
  type UnfinishedWorkflow,
  type WorkflowEvent,
  type WorkflowRepository,
  type WorkflowUsage,
} from '../../workflows/workflow-store.js';
import { StoreArgumentError } from '../store-argument-error.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { assertUnfinishedPage, assertWorkflowEvents, assertWorkflowRecord, isWorkflowId } from '../workflow-store-rules.js';

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
    'SELECT tenant_id, workflow_id FROM workflows WHERE finished_at IS NULL AND workflow_id > ? ORDER BY workflow_id LIMIT ?',
  );

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

  const finish = db.transaction((at: string, workflowId: string, tenantId: string): void => {
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
    async markFinished(tenantId, workflowId, finishedAt) {
      assertTenantId(tenantId);
      const at = normaliseInstant(finishedAt, 'finishedAt');
      if (!isWorkflowId(workflowId)) return;
      finish.immediate(at, workflowId, tenantId);
    },
    async listUnfinished(afterWorkflowId, limit) {
      assertUnfinishedPage(afterWorkflowId, limit);
      // '' sorts before every id: the first page.
      return selectUnfinished.all(afterWorkflowId ?? '', limit).map((row): UnfinishedWorkflow => ({ tenantId: row.tenant_id, workflowId: row.workflow_id }));
    },
    async usage(tenantId): Promise<WorkflowUsage> {
      assertTenantId(tenantId);
      const row = selectUsage.get(tenantId);
      return row === undefined ? { unfinished: 0, storedBytes: 0 } : { unfinished: Math.max(0, row.started - row.finished), storedBytes: row.stored_bytes };
    },
  };
}
