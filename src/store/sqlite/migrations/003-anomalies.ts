import type { Migration } from './migration.js';

export const migration003: Migration = {
  version: 3,
  name: 'anomalies',
  sql: `
    -- Sum of squared execution times per bucket: with count and time_sum it gives the variance the
    -- slowdown test needs. Buckets written before this step count as 0 (no spread).
    ALTER TABLE policy_rollups ADD COLUMN time_squares REAL NOT NULL DEFAULT 0;

    -- Idempotency records gain an owner and a running state (response NULL while the first request
    -- runs); status was NOT NULL, so the table is rebuilt with its rows.
    CREATE TABLE idempotency_records_v3 (
      tenant_id     TEXT    NOT NULL,
      key           TEXT    NOT NULL,
      request_hash  TEXT    NOT NULL,
      owner         TEXT    NOT NULL,
      status        INTEGER,
      body          TEXT,
      created_at    TEXT    NOT NULL,
      expires_at    TEXT    NOT NULL,
      expires_at_ms INTEGER NOT NULL,
      PRIMARY KEY (tenant_id, key)
    ) WITHOUT ROWID;
    INSERT INTO idempotency_records_v3
      SELECT tenant_id, key, request_hash, '', status, body, created_at, expires_at, expires_at_ms FROM idempotency_records;
    DROP TABLE idempotency_records;
    ALTER TABLE idempotency_records_v3 RENAME TO idempotency_records;
    CREATE INDEX idempotency_records_by_expiry ON idempotency_records (expires_at_ms);

    -- Anomalies: identity fixed at insert; observation and verification (JSON text) are replaced.
    -- The unique (tenant, type, module, function, version, occurrence) decides which detector opens
    -- an occurrence.
    CREATE TABLE anomalies (
      tenant_id       TEXT    NOT NULL,
      id              TEXT    NOT NULL,
      type            TEXT    NOT NULL,
      policy_module   TEXT    NOT NULL,
      policy_function TEXT    NOT NULL,
      version         INTEGER NOT NULL,
      occurrence      INTEGER NOT NULL CHECK (occurrence >= 1),
      detected_at     TEXT    NOT NULL,
      observation     TEXT    NOT NULL,
      verification    TEXT,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE UNIQUE INDEX anomalies_by_key ON anomalies (tenant_id, type, policy_module, policy_function, version, occurrence);
    CREATE INDEX anomalies_by_detected_at ON anomalies (tenant_id, detected_at);

    -- Status changes, insert-only: the unique (tenant, anomaly, seq) lets one of concurrent changes win.
    CREATE TABLE anomaly_transitions (
      tenant_id   TEXT    NOT NULL,
      anomaly_id  TEXT    NOT NULL,
      seq         INTEGER NOT NULL CHECK (seq >= 1),
      from_status TEXT    NOT NULL,
      to_status   TEXT    NOT NULL,
      note        TEXT,
      actor_id    TEXT    NOT NULL,
      occurred_at TEXT    NOT NULL,
      PRIMARY KEY (tenant_id, anomaly_id, seq)
    ) WITHOUT ROWID;
    CREATE TRIGGER anomaly_transitions_no_update BEFORE UPDATE ON anomaly_transitions
    BEGIN SELECT RAISE(ABORT, 'anomaly transitions are append-only'); END;
    CREATE TRIGGER anomaly_transitions_no_delete BEFORE DELETE ON anomaly_transitions
    BEGIN SELECT RAISE(ABORT, 'anomaly transitions are append-only'); END;

    -- A tenant's overrides of the detection defaults (JSON object of numbers).
    CREATE TABLE anomaly_settings (
      tenant_id  TEXT NOT NULL PRIMARY KEY,
      settings   TEXT NOT NULL,
      actor_id   TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) WITHOUT ROWID;
  `,
};
