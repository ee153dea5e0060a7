import type { Database } from 'better-sqlite3';
import { StoreArgumentError } from '../errors.js';
import type { UnfinishedWorkflow, WorkflowEvent, WorkflowRepository } from '../ports.js';
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

interface EventRow {
  sequence: number;
  event_type: string;
  payload: string;
  occurred_at: string;
}

/** Appends run the predecessor check and the inserts in one IMMEDIATE transaction. */
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

  const markFinished = db.prepare(
    'UPDATE workflows SET finished_at = ? WHERE workflow_id = ? AND tenant_id = ? AND finished_at IS NULL',
  );
  // Both served by the partial index `workflows_unfinished`, which holds only unfinished workflows.
  const selectUnfinished = db.prepare<[string, number], UnfinishedRow>(
    'SELECT tenant_id, workflow_id FROM workflows WHERE finished_at IS NULL AND workflow_id > ? ORDER BY workflow_id LIMIT ?',
  );

  const append = db.transaction((tenantId: string, workflowId: string, events: readonly WorkflowEvent[]): number => {
    const owner = selectWorkflow.get(workflowId);
    if (owner === undefined || owner.tenant_id !== tenantId) throw new StoreArgumentError(`workflow \`${workflowId}\` does not exist`);
    const first = events[0]!;
    if (first.sequence > 1 && exists.get(tenantId, workflowId, first.sequence - 1) === undefined) {
      throw new StoreArgumentError(`event ${first.sequence - 1} of workflow \`${workflowId}\` does not exist`);
    }
    let inserted = 0;
    for (const event of events) {
      const result = insertEvent.run(
        tenantId, workflowId, event.sequence, event.eventType, JSON.stringify(event.payload), normaliseInstant(event.occurredAt, 'occurredAt'),
      );
      if (result.changes === 0) break;
      inserted += 1;
    }
    return inserted;
  });

  return {
    async create(tenantId, record) {
      assertTenantId(tenantId);
      assertWorkflowRecord(record);
      const result = insertWorkflow.run(
        record.workflowId, tenantId, record.policyModule, record.version, record.workflow,
        JSON.stringify(record.context), record.actorId, normaliseInstant(record.startedAt, 'startedAt'),
      );
      return result.changes === 1;
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
      return selectEvents.all(tenantId, workflowId, Math.max(1, fromSeq), limit).map((row) => ({
        sequence: row.sequence,
        eventType: row.event_type,
        payload: JSON.parse(row.payload) as Record<string, unknown>,
        occurredAt: row.occurred_at,
      }));
    },
    async markFinished(tenantId, workflowId, finishedAt) {
      assertTenantId(tenantId);
      const at = normaliseInstant(finishedAt, 'finishedAt');
      if (!isWorkflowId(workflowId)) return;
      markFinished.run(at, workflowId, tenantId);
    },
    async listUnfinished(afterWorkflowId, limit) {
      assertUnfinishedPage(afterWorkflowId, limit);
      // '' sorts before every id: the first page.
      return selectUnfinished.all(afterWorkflowId ?? '', limit).map((row): UnfinishedWorkflow => ({ tenantId: row.tenant_id, workflowId: row.workflow_id }));
    },
  };
}
