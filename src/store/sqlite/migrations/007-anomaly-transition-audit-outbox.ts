import type { Migration } from './migration.js';

export const migration007: Migration = {
  version: 7,
  name: 'anomaly-transition-audit-outbox',
  sql: `
    -- What a verification job found, kept on the status change it made (JSON text; NULL on every
    -- other change), so the change's audit record can be made again from what is stored.
    ALTER TABLE anomaly_transitions ADD COLUMN verification TEXT;

    -- A status change carries, in its own insert, the ANOMALY_STATUS_CHANGED record it owes, as
    -- the registry's entries do (migration 5). Rows stored before this step owe nothing.
    ALTER TABLE anomaly_transitions ADD COLUMN audit_record_id TEXT;
    ALTER TABLE anomaly_transitions ADD COLUMN audit_claimed_by TEXT;
    ALTER TABLE anomaly_transitions ADD COLUMN audit_claimed_until TEXT;
    ALTER TABLE anomaly_transitions ADD COLUMN audited_at TEXT;

    -- The content stays immutable; only the claim and the audited mark of a row that owes a
    -- record change, and nothing changes once it is audited.
    DROP TRIGGER anomaly_transitions_no_update;
    CREATE TRIGGER anomaly_transitions_no_update
    BEFORE UPDATE OF tenant_id, anomaly_id, seq, from_status, to_status, note, actor_id, occurred_at, verification, audit_record_id
    ON anomaly_transitions
    BEGIN SELECT RAISE(ABORT, 'anomaly transitions are append-only'); END;
    CREATE TRIGGER anomaly_transitions_audited_stay BEFORE UPDATE ON anomaly_transitions
    WHEN OLD.audit_record_id IS NULL OR OLD.audited_at IS NOT NULL
    BEGIN SELECT RAISE(ABORT, 'anomaly transitions are append-only once audited'); END;

    -- The follower's query: owed rows only, by the end of their claim.
    CREATE INDEX anomaly_transitions_audit_owed ON anomaly_transitions (audit_claimed_until)
    WHERE audit_record_id IS NOT NULL AND audited_at IS NULL;
  `,
};
