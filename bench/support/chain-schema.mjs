// The audit chain's table and its four indexes as the service's migrations make them, for raw floors
// built without the service's code (bench/audit/floor.mjs, bench/floor/audit-writer.mjs).
export const CHAIN_SCHEMA = `
  CREATE TABLE audit_records (tenant_id TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, event_type TEXT NOT NULL,
    policy_module TEXT, policy_function TEXT, actor_id TEXT NOT NULL, occurred_at TEXT NOT NULL, payload TEXT NOT NULL,
    hash TEXT NOT NULL, previous_hash TEXT NOT NULL, PRIMARY KEY (tenant_id, seq)) WITHOUT ROWID;
  CREATE INDEX by_event_type ON audit_records (tenant_id, event_type, seq);
  CREATE INDEX by_policy ON audit_records (tenant_id, policy_module, policy_function, seq);
  CREATE INDEX by_occurred_at ON audit_records (tenant_id, occurred_at);
  CREATE INDEX by_id ON audit_records (tenant_id, id);`;

/** The previousHash of a chain's first record. */
export const GENESIS = '0'.repeat(64);
