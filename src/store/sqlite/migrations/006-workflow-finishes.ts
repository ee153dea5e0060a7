import type { Migration } from './migration.js';

export const migration006: Migration = {
  version: 6,
  name: 'workflow-finishes',
  sql: `
    -- When a workflow's log ended (its terminal event), so the sweep that resumes workflows whose
    -- jobs were lost reads only unfinished ones. NULL while it runs or waits.
    ALTER TABLE workflows ADD COLUMN finished_at TEXT;

    -- Workflows stored before this step: finished when their log holds a terminal event (only
    -- the runner appends one, always as the last).
    UPDATE workflows SET finished_at = (
      SELECT e.occurred_at FROM workflow_events e
      WHERE e.tenant_id = workflows.tenant_id AND e.workflow_id = workflows.workflow_id
        AND e.event_type IN ('WORKFLOW_COMPLETED', 'WORKFLOW_FAILED', 'WORKFLOW_CANCELLED')
      ORDER BY e.sequence DESC LIMIT 1
    );

    -- Pages of unfinished workflows by id: the index holds only those, so finished ones cost nothing.
    CREATE INDEX workflows_unfinished ON workflows (workflow_id) WHERE finished_at IS NULL;
  `,
};
