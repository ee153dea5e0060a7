import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../index.js';

/** Each webhook query of a tenant reads through an index, never a whole table. */
describe('SQLite webhook query plans', () => {
  let store: SqliteStore;
  beforeAll(async () => {
    store = await openSqliteStore(':memory:');
  });
  afterAll(async () => {
    await store.close();
  });

  const plan = (sql: string) =>
    store.raw
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all()
      .map((row) => (row as { detail: string }).detail)
      .join(' | ');

  it.each([
    ["SELECT * FROM webhook_subscriptions WHERE tenant_id = 'a' ORDER BY created_at, id LIMIT 10 OFFSET 0", /USING INDEX webhook_subscriptions_by_created_at/],
    ["SELECT * FROM webhook_subscriptions WHERE tenant_id = 'a' AND id = 'x'", /USING INDEX sqlite_autoindex_webhook_subscriptions_1/],
    ["SELECT * FROM webhook_deliveries WHERE tenant_id = 'a' AND id = 'x'", /USING INDEX sqlite_autoindex_webhook_deliveries_1/],
    ["SELECT * FROM webhook_deliveries WHERE tenant_id = 'a' AND subscription_id = 's' ORDER BY n DESC LIMIT 10 OFFSET 0", /USING INDEX webhook_deliveries_by_subscription/],
    ["SELECT count(*) FROM webhook_deliveries WHERE tenant_id = 'a' AND subscription_id = 's'", /USING COVERING INDEX webhook_deliveries_by_subscription/],
    [
      "SELECT * FROM webhook_deliveries INDEXED BY webhook_deliveries_due WHERE tenant_id = 'a' AND status IN ('PENDING', 'FAILED') AND next_attempt_at < 'x' ORDER BY next_attempt_at LIMIT 100",
      /USING INDEX webhook_deliveries_due \(tenant_id=\? AND next_attempt_at<\?\)/,
    ],
    ["SELECT tenant_id FROM webhook_cursors WHERE tenant_id > '' ORDER BY tenant_id LIMIT 100", /USING (COVERING )?INDEX sqlite_autoindex_webhook_cursors_1/],
    [
      "SELECT * FROM audit_records INDEXED BY audit_records_by_event_type WHERE tenant_id = 'a' AND event_type = 'POLICY_DEPLOYED' AND seq > 5 ORDER BY seq LIMIT 100",
      /USING INDEX audit_records_by_event_type \(tenant_id=\? AND event_type=\? AND seq>\?\)/,
    ],
  ])('%s', (sql, expected) => {
    const detail = plan(sql);
    expect(detail).toMatch(expected);
    expect(detail).not.toMatch(/TEMP B-TREE/);
  });
});
