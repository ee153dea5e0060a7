import type { Migration } from './migration.js';

export const migration016: Migration = {
  version: 16,
  name: 'webhooks',
  sql: `
    -- A tenant's webhook subscriptions (at most WEBHOOK_MAX_PER_TENANT, counted in the insert's
    -- transaction); \`events\` is a JSON list of event names; the secret signs deliveries.
    CREATE TABLE webhook_subscriptions (
      tenant_id  TEXT NOT NULL,
      id         TEXT NOT NULL,
      url        TEXT NOT NULL,
      events     TEXT NOT NULL,
      secret     TEXT NOT NULL,
      actor_id   TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (tenant_id, id)
    );
    CREATE INDEX webhook_subscriptions_by_created_at ON webhook_subscriptions (tenant_id, created_at, id);

    -- How far each subscribed tenant's audit chain was read for webhook events.
    CREATE TABLE webhook_cursors (
      tenant_id TEXT NOT NULL PRIMARY KEY,
      seq       INTEGER NOT NULL
    );

    -- One event for one subscription and how its attempts went; the newest WEBHOOK_DELIVERIES_KEPT
    -- of a subscription are kept (\`n\` orders them).
    CREATE TABLE webhook_deliveries (
      n                INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id        TEXT NOT NULL,
      id               TEXT NOT NULL,
      subscription_id  TEXT NOT NULL,
      event_id         TEXT NOT NULL,
      event_type       TEXT NOT NULL,
      body             TEXT NOT NULL,
      status           TEXT NOT NULL,
      attempts         INTEGER NOT NULL,
      last_status_code INTEGER,
      last_error       TEXT,
      next_attempt_at  TEXT,
      created_at       TEXT NOT NULL,
      UNIQUE (tenant_id, id)
    );
    CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries (tenant_id, subscription_id, n);
    -- The deliveries still to be tried, by when: the sweep that queues again attempts whose jobs were lost.
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (tenant_id, next_attempt_at) WHERE status IN ('PENDING', 'FAILED');
  `,
};
