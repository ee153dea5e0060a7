import type { Migration } from './migration.js';

export const migration012: Migration = {
  version: 12,
  name: 'audit-linking',
  sql: `
    -- Records as the answering process stores them, waiting for the tenant's linker to give them
    -- their place in the chain (audit_records). stored_seq (the rowid) is the order they were stored
    -- in: a new row takes the largest rowid plus one, so it follows every row still waiting.
    CREATE TABLE audit_unlinked (
      stored_seq INTEGER PRIMARY KEY,
      tenant_id TEXT NOT NULL,
      id TEXT NOT NULL,
      event_type TEXT NOT NULL,
      policy_module TEXT,
      policy_function TEXT,
      actor_id TEXT NOT NULL,
      occurred_at TEXT NOT NULL,
      payload TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      stored_at TEXT NOT NULL,
      -- 1 when the caller fixed the id (an owed record): only such a record may be in the chain already.
      given_id INTEGER NOT NULL DEFAULT 0,
      UNIQUE (tenant_id, id)
    );
    CREATE INDEX audit_unlinked_by_tenant ON audit_unlinked (tenant_id, stored_seq);

    -- One row per tenant: the chain's head and the lease of the process that links it. Moving the
    -- head requires the holder and epoch of the lease, so a holder that lost it writes nothing.
    CREATE TABLE audit_chain_heads (
      tenant_id TEXT PRIMARY KEY,
      seq INTEGER NOT NULL,
      hash TEXT,
      holder TEXT NOT NULL,
      epoch INTEGER NOT NULL,
      lease_until TEXT NOT NULL
    ) WITHOUT ROWID;
  `,
};
