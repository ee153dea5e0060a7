import type { Migration } from './migration.js';

export const migration005: Migration = {
  version: 5,
  name: 'registry-audit-outbox',
  sql: `
    -- A deployed version and a rollback activation carry, in their own insert, the audit record
    -- they owe: its id, who may write it until when (a lease), and when it was in the chain. Rows
    -- stored before this step owe nothing (their records were written with them), as do rows
    -- with no audit_record_id.
    ALTER TABLE policy_versions ADD COLUMN audit_record_id TEXT;
    ALTER TABLE policy_versions ADD COLUMN audit_claimed_by TEXT;
    ALTER TABLE policy_versions ADD COLUMN audit_claimed_until TEXT;
    ALTER TABLE policy_versions ADD COLUMN audited_at TEXT;
    ALTER TABLE policy_activations ADD COLUMN audit_record_id TEXT;
    ALTER TABLE policy_activations ADD COLUMN audit_claimed_by TEXT;
    ALTER TABLE policy_activations ADD COLUMN audit_claimed_until TEXT;
    ALTER TABLE policy_activations ADD COLUMN audited_at TEXT;

    -- The content stays immutable; only the claim and the audited mark of a row that owes a
    -- record change, and nothing changes once it is audited.
    DROP TRIGGER policy_versions_no_update;
    CREATE TRIGGER policy_versions_no_update
    BEFORE UPDATE OF tenant_id, policy_module, version, source, locale, source_hash, functions, actor_id, created_at, audit_record_id
    ON policy_versions
    BEGIN SELECT RAISE(ABORT, 'policy versions are immutable'); END;
    CREATE TRIGGER policy_versions_audited_stay BEFORE UPDATE ON policy_versions
    WHEN OLD.audit_record_id IS NULL OR OLD.audited_at IS NOT NULL
    BEGIN SELECT RAISE(ABORT, 'policy versions are immutable once audited'); END;
    DROP TRIGGER policy_activations_no_update;
    CREATE TRIGGER policy_activations_no_update
    BEFORE UPDATE OF tenant_id, policy_module, seq, kind, version, previous_version, highest_deployed, actor_id, occurred_at, audit_record_id
    ON policy_activations
    BEGIN SELECT RAISE(ABORT, 'policy activations are append-only'); END;
    CREATE TRIGGER policy_activations_audited_stay BEFORE UPDATE ON policy_activations
    WHEN OLD.audit_record_id IS NULL OR OLD.audited_at IS NOT NULL
    BEGIN SELECT RAISE(ABORT, 'policy activations are append-only once audited'); END;

    -- The follower's query: owed rows only, by the end of their claim.
    CREATE INDEX policy_versions_audit_owed ON policy_versions (audit_claimed_until)
    WHERE audit_record_id IS NOT NULL AND audited_at IS NULL;
    CREATE INDEX policy_activations_audit_owed ON policy_activations (audit_claimed_until)
    WHERE audit_record_id IS NOT NULL AND audited_at IS NULL;

    -- "Is this owed record already in the chain?" (written, then the writer stopped before marking).
    CREATE INDEX audit_records_by_id ON audit_records (tenant_id, id);
  `,
};
