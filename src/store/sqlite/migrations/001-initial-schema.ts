import type { Migration } from './migration.js';

export const migration001: Migration = {
  version: 1,
  name: 'initial-schema',
  sql: `
    -- One chain per tenant; the primary key is the unique (tenant, seq) that makes appends fork-proof.
    CREATE TABLE audit_records (
      tenant_id       TEXT    NOT NULL,
      seq             INTEGER NOT NULL CHECK (seq >= 1),
      id              TEXT    NOT NULL,
      event_type      TEXT    NOT NULL,
      policy_module   TEXT,
      policy_function TEXT,
      actor_id        TEXT    NOT NULL,
      occurred_at     TEXT    NOT NULL,
      payload         TEXT    NOT NULL,
      hash            TEXT    NOT NULL,
      previous_hash   TEXT    NOT NULL,
      PRIMARY KEY (tenant_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX audit_records_by_event_type ON audit_records (tenant_id, event_type, seq);
    CREATE INDEX audit_records_by_policy ON audit_records (tenant_id, policy_module, policy_function, seq);
    CREATE INDEX audit_records_by_occurred_at ON audit_records (tenant_id, occurred_at);

    -- The chain is append-only; verification still catches edits made with these triggers dropped.
    CREATE TRIGGER audit_records_no_update BEFORE UPDATE ON audit_records
    BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;
    CREATE TRIGGER audit_records_no_delete BEFORE DELETE ON audit_records
    BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;

    CREATE TABLE tenants (
      tenant_id  TEXT NOT NULL PRIMARY KEY,
      created_at TEXT NOT NULL
    ) WITHOUT ROWID;

    CREATE TABLE tenant_secrets (
      tenant_id  TEXT    NOT NULL REFERENCES tenants (tenant_id),
      version    INTEGER NOT NULL,
      secret     TEXT    NOT NULL,
      created_at TEXT    NOT NULL,
      PRIMARY KEY (tenant_id, version)
    ) WITHOUT ROWID;

    CREATE TABLE idempotency_records (
      tenant_id     TEXT    NOT NULL,
      key           TEXT    NOT NULL,
      request_hash  TEXT    NOT NULL,
      status        INTEGER NOT NULL,
      body          TEXT    NOT NULL,
      created_at    TEXT    NOT NULL,
      expires_at    TEXT    NOT NULL,
      expires_at_ms INTEGER NOT NULL,
      PRIMARY KEY (tenant_id, key)
    ) WITHOUT ROWID;
    CREATE INDEX idempotency_records_by_expiry ON idempotency_records (expires_at_ms);
  `,
};
