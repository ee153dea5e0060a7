import type { Migration } from './migration.js';

export const migration009: Migration = {
  version: 9,
  name: 'policy-rule-index',
  sql: `
    -- The rules of each stored version, one row each, without the source: a page of the policy
    -- list reads its own rules here instead of every version's \`functions\`, which sit after the
    -- source in the row. Written with their version, never changed.
    CREATE TABLE policy_rules (
      tenant_id       TEXT    NOT NULL,
      policy_module   TEXT    NOT NULL,
      version         INTEGER NOT NULL,
      ordinal         INTEGER NOT NULL CHECK (ordinal >= 0),
      policy_function TEXT    NOT NULL,
      PRIMARY KEY (tenant_id, policy_module, version, ordinal)
    ) WITHOUT ROWID;
    CREATE TRIGGER policy_rules_no_update BEFORE UPDATE ON policy_rules
    BEGIN SELECT RAISE(ABORT, 'policy rules are immutable'); END;
    CREATE TRIGGER policy_rules_no_delete BEFORE DELETE ON policy_rules
    BEGIN SELECT RAISE(ABORT, 'policy rules are immutable'); END;
    INSERT INTO policy_rules (tenant_id, policy_module, version, ordinal, policy_function)
    SELECT v.tenant_id, v.policy_module, v.version, CAST(f.key AS INTEGER), json_extract(f.value, '$.name')
    FROM policy_versions v, json_each(v.functions) f;

    -- Each version's number of rules, in an index that also holds what a listed rule shows of its
    -- version: counting and locating a page reads this index only (one entry per version).
    ALTER TABLE policy_versions ADD COLUMN rule_count INTEGER NOT NULL DEFAULT 0;
    DROP TRIGGER policy_versions_no_update;
    DROP TRIGGER policy_versions_audited_stay;
    UPDATE policy_versions SET rule_count = json_array_length(functions);
    CREATE TRIGGER policy_versions_no_update
    BEFORE UPDATE OF tenant_id, policy_module, version, source, locale, source_hash, functions, actor_id, created_at, audit_record_id, rule_count
    ON policy_versions
    BEGIN SELECT RAISE(ABORT, 'policy versions are immutable'); END;
    CREATE TRIGGER policy_versions_audited_stay BEFORE UPDATE ON policy_versions
    WHEN OLD.audit_record_id IS NULL OR OLD.audited_at IS NOT NULL
    BEGIN SELECT RAISE(ABORT, 'policy versions are immutable once audited'); END;
    CREATE INDEX policy_versions_rule_counts ON policy_versions (tenant_id, policy_module, version, rule_count, locale, created_at);
  `,
};
