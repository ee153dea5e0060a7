import type { Migration } from './migration.js';

export const migration002: Migration = {
  version: 2,
  name: 'policy-registry',
  sql: `
    -- Deployed module versions: the primary key is the unique (tenant, module, version) that makes
    -- concurrent deploys take distinct numbers. Rows are large (the source), so not WITHOUT ROWID.
    CREATE TABLE policy_versions (
      tenant_id     TEXT    NOT NULL,
      policy_module TEXT    NOT NULL,
      version       INTEGER NOT NULL CHECK (version >= 1),
      source        TEXT    NOT NULL,
      locale        TEXT    NOT NULL,
      source_hash   TEXT    NOT NULL,
      functions     TEXT    NOT NULL,
      actor_id      TEXT    NOT NULL,
      created_at    TEXT    NOT NULL,
      PRIMARY KEY (tenant_id, policy_module, version)
    );
    CREATE TRIGGER policy_versions_no_update BEFORE UPDATE ON policy_versions
    BEGIN SELECT RAISE(ABORT, 'policy versions are immutable'); END;
    CREATE TRIGGER policy_versions_no_delete BEFORE DELETE ON policy_versions
    BEGIN SELECT RAISE(ABORT, 'policy versions are immutable'); END;

    -- Which version is active: the activation with the highest seq of the module. Insert-only.
    CREATE TABLE policy_activations (
      tenant_id        TEXT    NOT NULL,
      policy_module    TEXT    NOT NULL,
      seq              INTEGER NOT NULL CHECK (seq >= 1),
      kind             TEXT    NOT NULL CHECK (kind IN ('DEPLOY', 'ROLLBACK')),
      version          INTEGER NOT NULL CHECK (version >= 0),
      previous_version INTEGER,
      highest_deployed INTEGER NOT NULL,
      actor_id         TEXT    NOT NULL,
      occurred_at      TEXT    NOT NULL,
      PRIMARY KEY (tenant_id, policy_module, seq)
    ) WITHOUT ROWID;
    CREATE TRIGGER policy_activations_no_update BEFORE UPDATE ON policy_activations
    BEGIN SELECT RAISE(ABORT, 'policy activations are append-only'); END;
    CREATE TRIGGER policy_activations_no_delete BEFORE DELETE ON policy_activations
    BEGIN SELECT RAISE(ABORT, 'policy activations are append-only'); END;

    -- Per-minute evaluation rollups of stored policies, incremented with UPSERT.
    CREATE TABLE policy_rollups (
      tenant_id       TEXT    NOT NULL,
      policy_module   TEXT    NOT NULL,
      policy_function TEXT    NOT NULL,
      version         INTEGER NOT NULL,
      minute          TEXT    NOT NULL,
      count           INTEGER NOT NULL,
      failures        INTEGER NOT NULL,
      time_sum        REAL    NOT NULL,
      max             REAL    NOT NULL,
      PRIMARY KEY (tenant_id, policy_module, policy_function, version, minute)
    ) WITHOUT ROWID;
    CREATE INDEX policy_rollups_by_minute ON policy_rollups (tenant_id, minute);
    CREATE INDEX policy_rollups_by_minute_all ON policy_rollups (minute, tenant_id);
  `,
};
