import type { Migration } from './migration.js';

export const migration004: Migration = {
  version: 4,
  name: 'workflows',
  sql: `
    -- Started workflows: the id is unique across tenants (another tenant's id is told apart).
    CREATE TABLE workflows (
      workflow_id   TEXT    NOT NULL PRIMARY KEY,
      tenant_id     TEXT    NOT NULL,
      policy_module TEXT    NOT NULL,
      version       INTEGER NOT NULL,
      workflow      TEXT    NOT NULL,
      context       TEXT    NOT NULL,
      actor_id      TEXT    NOT NULL,
      started_at    TEXT    NOT NULL
    ) WITHOUT ROWID;

    -- Event logs, insert-only: the key makes a duplicate sequence impossible, and reads from a
    -- sequence on are a range of it.
    CREATE TABLE workflow_events (
      tenant_id   TEXT    NOT NULL,
      workflow_id TEXT    NOT NULL,
      sequence    INTEGER NOT NULL CHECK (sequence >= 1),
      event_type  TEXT    NOT NULL,
      payload     TEXT    NOT NULL,
      occurred_at TEXT    NOT NULL,
      PRIMARY KEY (tenant_id, workflow_id, sequence)
    ) WITHOUT ROWID;
    CREATE TRIGGER workflow_events_no_update BEFORE UPDATE ON workflow_events
    BEGIN SELECT RAISE(ABORT, 'workflow events are append-only'); END;
    CREATE TRIGGER workflow_events_no_delete BEFORE DELETE ON workflow_events
    BEGIN SELECT RAISE(ABORT, 'workflow events are append-only'); END;
  `,
};
