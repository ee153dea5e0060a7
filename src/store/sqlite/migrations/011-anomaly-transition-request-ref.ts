import type { Migration } from './migration.js';

export const migration011: Migration = {
  version: 11,
  name: 'anomaly-transition-request-ref',
  sql: `
    -- The reference of the keyed request (Idempotency-Key) that made a status change; NULL for a
    -- change made without one, and for every change stored before this step. A repeat of the
    -- request finds its change by it and makes no second one.
    ALTER TABLE anomaly_transitions ADD COLUMN request_ref TEXT;

    -- Part of the immutable content, like every column but the claim and the audited mark.
    DROP TRIGGER anomaly_transitions_no_update;
    CREATE TRIGGER anomaly_transitions_no_update
    BEFORE UPDATE OF tenant_id, anomaly_id, seq, from_status, to_status, note, actor_id, occurred_at, verification, audit_record_id, request_ref
    ON anomaly_transitions
    BEGIN SELECT RAISE(ABORT, 'anomaly transitions are append-only'); END;
  `,
};
