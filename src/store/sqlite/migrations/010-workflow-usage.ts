import type { Migration } from './migration.js';

export const migration010: Migration = {
  version: 10,
  name: 'workflow-usage',
  sql: `
    -- What each tenant's workflows hold, for its quotas: kept by the same transactions that create
    -- workflows, append events and mark workflows finished, so checking a quota reads one row.
    -- Unfinished workflows are started - finished; stored_bytes counts the UTF-8 bytes of every
    -- context and event payload as stored (JSON text).
    CREATE TABLE workflow_usage (
      tenant_id    TEXT    NOT NULL PRIMARY KEY,
      started      INTEGER NOT NULL DEFAULT 0,
      finished     INTEGER NOT NULL DEFAULT 0,
      stored_bytes INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID;

    -- Workflows stored before this step: counted once, here.
    INSERT INTO workflow_usage (tenant_id, started, finished, stored_bytes)
    SELECT tenant_id, COUNT(*), COUNT(finished_at), SUM(length(CAST(context AS BLOB))) FROM workflows GROUP BY tenant_id;
    UPDATE workflow_usage SET stored_bytes = stored_bytes + COALESCE(
      (SELECT SUM(length(CAST(e.payload AS BLOB))) FROM workflow_events e WHERE e.tenant_id = workflow_usage.tenant_id), 0);
  `,
};
