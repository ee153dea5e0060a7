import type { Migration } from './migration.js';

export const migration015: Migration = {
  version: 15,
  name: 'workflow-summaries',
  sql: `
    -- What the list shows of each workflow, kept beside its record by whoever appended to its log:
    -- the status, step and final result of the log replayed up to summary_seq. A write lands only
    -- over an older summary (summary_seq < the new one's), so racing writers never go back.
    ALTER TABLE workflows ADD COLUMN status TEXT NOT NULL DEFAULT 'RUNNING';
    ALTER TABLE workflows ADD COLUMN current_step TEXT;
    ALTER TABLE workflows ADD COLUMN final_result INTEGER;
    ALTER TABLE workflows ADD COLUMN summary_seq INTEGER NOT NULL DEFAULT 0;

    -- Workflows stored before this step, where one event tells: an ended log by its terminal event
    -- (the finished mark of migration 6 found it); a log that ends with SIGNAL_AWAITED waits at that
    -- event's step. The others keep summary_seq 0: the resume sweep finds their summary behind the
    -- log and has a run store it.
    UPDATE workflows SET
      status = CASE e.event_type WHEN 'WORKFLOW_COMPLETED' THEN 'COMPLETED' WHEN 'WORKFLOW_FAILED' THEN 'FAILED' ELSE 'CANCELLED' END,
      final_result = CASE WHEN e.event_type = 'WORKFLOW_COMPLETED' THEN json_extract(e.payload, '$.finalResult') IS 1 END,
      summary_seq = e.sequence
    FROM (
      SELECT tenant_id, workflow_id, sequence, event_type, payload FROM workflow_events
      WHERE event_type IN ('WORKFLOW_COMPLETED', 'WORKFLOW_FAILED', 'WORKFLOW_CANCELLED')
    ) AS e
    WHERE workflows.finished_at IS NOT NULL AND e.tenant_id = workflows.tenant_id AND e.workflow_id = workflows.workflow_id;

    UPDATE workflows SET
      status = 'WAITING',
      current_step = json_extract(e.payload, '$.step'),
      summary_seq = e.sequence
    FROM (
      SELECT l.tenant_id, l.workflow_id, l.sequence, l.payload FROM workflow_events l
      WHERE l.event_type = 'SIGNAL_AWAITED' AND json_type(l.payload, '$.step') = 'text'
        AND l.sequence = (SELECT max(m.sequence) FROM workflow_events m WHERE m.tenant_id = l.tenant_id AND m.workflow_id = l.workflow_id)
    ) AS e
    WHERE workflows.finished_at IS NULL AND e.tenant_id = workflows.tenant_id AND e.workflow_id = workflows.workflow_id;

    -- The list's pages: a tenant's workflows newest start first, with or without a status. The
    -- module and workflow name ride along so that their filters, and the count, read the index only.
    CREATE INDEX workflows_by_start ON workflows (tenant_id, started_at DESC, workflow_id DESC, policy_module, workflow);
    CREATE INDEX workflows_by_status_start ON workflows (tenant_id, status, started_at DESC, workflow_id DESC, policy_module, workflow);
  `,
};
