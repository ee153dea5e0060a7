import type { Migration } from './migration.js';

export const migration008: Migration = {
  version: 8,
  name: 'anomaly-detection-audit-outbox',
  sql: `
    -- An anomaly carries, in its own insert, the ANOMALY_DETECTED record it owes, as its status
    -- changes do (migration 7), and the observation it was detected with (detection rounds replace
    -- \`observation\`), which that record is made of. Rows stored before this step owe nothing.
    ALTER TABLE anomalies ADD COLUMN detected_observation TEXT;
    ALTER TABLE anomalies ADD COLUMN audit_record_id TEXT;
    ALTER TABLE anomalies ADD COLUMN audit_claimed_by TEXT;
    ALTER TABLE anomalies ADD COLUMN audit_claimed_until TEXT;
    ALTER TABLE anomalies ADD COLUMN audited_at TEXT;

    -- The identity, the detection and its record never change; the observation and verification
    -- do. Only the claim and the audited mark of an anomaly that owes its record change, and they
    -- stay once it is audited.
    CREATE TRIGGER anomalies_detection_fixed
    BEFORE UPDATE OF tenant_id, id, type, policy_module, policy_function, version, occurrence, detected_at, detected_observation, audit_record_id
    ON anomalies
    BEGIN SELECT RAISE(ABORT, 'an anomaly''s identity and detection are immutable'); END;
    CREATE TRIGGER anomalies_detection_audited_stay
    BEFORE UPDATE OF audit_claimed_by, audit_claimed_until, audited_at ON anomalies
    WHEN OLD.audit_record_id IS NULL OR OLD.audited_at IS NOT NULL
    BEGIN SELECT RAISE(ABORT, 'an anomaly''s detection record is settled'); END;

    -- The follower's query: owed anomalies only, by the end of their claim.
    CREATE INDEX anomalies_audit_owed ON anomalies (audit_claimed_until)
    WHERE audit_record_id IS NOT NULL AND audited_at IS NULL;
  `,
};
