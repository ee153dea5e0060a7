import type { Migration } from './migration.js';

export const migration014: Migration = {
  version: 14,
  name: 'anomaly-open-index',
  sql: `
    -- An anomaly's status, the \`to\` of its newest transition (OPEN before the first), kept here by
    -- the trigger below in the insert of each transition, so that a tenant's OPEN anomalies are found
    -- through an index instead of every anomaly the tenant ever had. Reads still take the status
    -- from the transitions; this column only serves that search.
    ALTER TABLE anomalies ADD COLUMN status TEXT NOT NULL DEFAULT 'OPEN';
    UPDATE anomalies SET status = (
      SELECT t.to_status FROM anomaly_transitions t
      WHERE t.tenant_id = anomalies.tenant_id AND t.anomaly_id = anomalies.id ORDER BY t.seq DESC LIMIT 1
    )
    WHERE EXISTS (SELECT 1 FROM anomaly_transitions t WHERE t.tenant_id = anomalies.tenant_id AND t.anomaly_id = anomalies.id);
    -- Transitions are inserted in seq order (each needs its predecessor), so the newest insert is the status.
    CREATE TRIGGER anomaly_transitions_set_status AFTER INSERT ON anomaly_transitions
    BEGIN UPDATE anomalies SET status = NEW.to_status WHERE tenant_id = NEW.tenant_id AND id = NEW.anomaly_id; END;

    -- When the anomaly was last observed, in toISOString() form whatever zone it was written with:
    -- the OPEN ones are listed oldest observation first.
    ALTER TABLE anomalies ADD COLUMN observed_at TEXT
      GENERATED ALWAYS AS (strftime('%Y-%m-%dT%H:%M:%fZ', json_extract(observation, '$.observedAt'))) VIRTUAL;
    CREATE INDEX anomalies_open_by_observed_at ON anomalies (tenant_id, observed_at, id) WHERE status = 'OPEN';
  `,
};
