import type { Migration } from './migration.js';

export const migration013: Migration = {
  version: 13,
  name: 'policy-rollouts',
  sql: `
    -- A rollout's steps are activations (ROLLOUT_STARTED, ROLLOUT_PROMOTED, ROLLOUT_ABORTED) with
    -- their terms as JSON in rollout. SQLite cannot widen a CHECK in place: the table is rebuilt
    -- with the same rows, triggers and index.
    DROP TRIGGER policy_activations_no_update;
    DROP TRIGGER policy_activations_audited_stay;
    DROP TRIGGER policy_activations_no_delete;
    DROP INDEX policy_activations_audit_owed;
    ALTER TABLE policy_activations RENAME TO policy_activations_before_rollouts;
    CREATE TABLE policy_activations (
      tenant_id           TEXT    NOT NULL,
      policy_module       TEXT    NOT NULL,
      seq                 INTEGER NOT NULL CHECK (seq >= 1),
      kind                TEXT    NOT NULL CHECK (kind IN ('DEPLOY', 'ROLLBACK', 'ROLLOUT_STARTED', 'ROLLOUT_PROMOTED', 'ROLLOUT_ABORTED')),
      version             INTEGER NOT NULL CHECK (version >= 0),
      previous_version    INTEGER,
      highest_deployed    INTEGER NOT NULL,
      actor_id            TEXT    NOT NULL,
      occurred_at         TEXT    NOT NULL,
      audit_record_id     TEXT,
      audit_claimed_by    TEXT,
      audit_claimed_until TEXT,
      audited_at          TEXT,
      rollout             TEXT,
      PRIMARY KEY (tenant_id, policy_module, seq)
    ) WITHOUT ROWID;
    INSERT INTO policy_activations (tenant_id, policy_module, seq, kind, version, previous_version, highest_deployed, actor_id, occurred_at,
      audit_record_id, audit_claimed_by, audit_claimed_until, audited_at)
    SELECT tenant_id, policy_module, seq, kind, version, previous_version, highest_deployed, actor_id, occurred_at,
      audit_record_id, audit_claimed_by, audit_claimed_until, audited_at
    FROM policy_activations_before_rollouts;
    DROP TABLE policy_activations_before_rollouts;

    CREATE TRIGGER policy_activations_no_update
    BEFORE UPDATE OF tenant_id, policy_module, seq, kind, version, previous_version, highest_deployed, actor_id, occurred_at, audit_record_id, rollout
    ON policy_activations
    BEGIN SELECT RAISE(ABORT, 'policy activations are append-only'); END;
    CREATE TRIGGER policy_activations_audited_stay BEFORE UPDATE ON policy_activations
    WHEN OLD.audit_record_id IS NULL OR OLD.audited_at IS NOT NULL
    BEGIN SELECT RAISE(ABORT, 'policy activations are append-only once audited'); END;
    CREATE TRIGGER policy_activations_no_delete BEFORE DELETE ON policy_activations
    BEGIN SELECT RAISE(ABORT, 'policy activations are append-only'); END;
    CREATE INDEX policy_activations_audit_owed ON policy_activations (audit_claimed_until)
    WHERE audit_record_id IS NOT NULL AND audited_at IS NULL;

    -- The rollout guard's query: rollouts started, of which the running ones are module heads.
    CREATE INDEX policy_activations_rollouts_started ON policy_activations (tenant_id, policy_module, seq)
    WHERE kind = 'ROLLOUT_STARTED';
  `,
};
