import type { Database } from 'better-sqlite3';
import type { WebhookEventType } from '../../webhooks/webhook-events.js';
import type { DeliveryStatus, WebhookDelivery, WebhookRepository, WebhookSubscription } from '../../webhooks/webhook-store.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { assertCount, assertId, assertPage, checkedDelivery, checkedOutcome, checkedSubscription } from '../webhook-store-rules.js';

interface SubscriptionRow {
  id: string;
  url: string;
  events: string;
  secret: string;
  actor_id: string;
  created_at: string;
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

const SUBSCRIPTION_COLUMNS = 'id, url, events, secret, actor_id, created_at';
const DELIVERY_COLUMNS = 'id, subscription_id, event_id, event_type, body, status, attempts, last_status_code, last_error, next_attempt_at, created_at';

function toSubscription(row: SubscriptionRow): WebhookSubscription {
  return { id: row.id, url: row.url, events: JSON.parse(row.events) as WebhookEventType[], secret: row.secret, actorId: row.actor_id, createdAt: row.created_at };
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    eventId: row.event_id,
    eventType: row.event_type as WebhookEventType,
    body: row.body,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
  };
}

export function createSqliteWebhookRepository(db: Database): WebhookRepository {
  const countSubscriptions = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM webhook_subscriptions WHERE tenant_id = ?');
  const insertSubscription = db.prepare(
    `INSERT INTO webhook_subscriptions (tenant_id, ${SUBSCRIPTION_COLUMNS}) VALUES (@tenantId, @id, @url, @events, @secret, @actorId, @createdAt)`,
  );
  const subscriptionById = db.prepare<[string, string], SubscriptionRow>(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE tenant_id = ? AND id = ?`);
  const subscriptionPage = db.prepare<[string, number, number], SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE tenant_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
  );
  const deleteSubscription = db.prepare<[string, string]>('DELETE FROM webhook_subscriptions WHERE tenant_id = ? AND id = ?');
  const deleteDeliveriesOf = db.prepare<[string, string]>('DELETE FROM webhook_deliveries WHERE tenant_id = ? AND subscription_id = ?');
  const cursorOf = db.prepare<[string], { seq: number }>('SELECT seq FROM webhook_cursors WHERE tenant_id = ?');
  const advance = db.prepare<[string, number]>(
    'INSERT INTO webhook_cursors (tenant_id, seq) VALUES (?, ?) ON CONFLICT (tenant_id) DO UPDATE SET seq = excluded.seq WHERE excluded.seq > webhook_cursors.seq',
  );
  const followed = db.prepare<[string, number], { tenant_id: string }>('SELECT tenant_id FROM webhook_cursors WHERE tenant_id > ? ORDER BY tenant_id LIMIT ?');
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries (tenant_id, ${DELIVERY_COLUMNS})
     VALUES (@tenantId, @id, @subscriptionId, @eventId, @eventType, @body, @status, @attempts, @lastStatusCode, @lastError, @nextAttemptAt, @createdAt)
     ON CONFLICT (tenant_id, id) DO NOTHING`,
  );
  const deliveryById = db.prepare<[string, string], DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE tenant_id = ? AND id = ?`);
  const recordOutcome = db.prepare(
    `UPDATE webhook_deliveries SET status = @status, attempts = @attempts, last_status_code = @lastStatusCode, last_error = @lastError, next_attempt_at = @nextAttemptAt
     WHERE tenant_id = @tenantId AND id = @id AND attempts < @attempts`,
  );
  const markPending = db.prepare<[string, string, string, number]>(
    "UPDATE webhook_deliveries SET status = 'PENDING', next_attempt_at = ? WHERE tenant_id = ? AND id = ? AND attempts = ?",
  );
  const overdue = db.prepare<[string, string, number], DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries INDEXED BY webhook_deliveries_due
     WHERE tenant_id = ? AND status IN ('PENDING', 'FAILED') AND next_attempt_at < ? ORDER BY next_attempt_at LIMIT ?`,
  );
  const deliveryPage = db.prepare<[string, string, number, number], DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE tenant_id = ? AND subscription_id = ? ORDER BY n DESC LIMIT ? OFFSET ?`,
  );
  const countDeliveries = db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM webhook_deliveries WHERE tenant_id = ? AND subscription_id = ?');
  const prune = db.prepare<[string, string, string, string, number]>(
    `DELETE FROM webhook_deliveries WHERE tenant_id = ? AND subscription_id = ? AND n <= (
       SELECT n FROM webhook_deliveries WHERE tenant_id = ? AND subscription_id = ? ORDER BY n DESC LIMIT 1 OFFSET ?
     )`,
  );

  const createInTransaction = db.transaction((tenantId: string, subscription: WebhookSubscription, maxPerTenant: number): 'created' | 'limit' => {
    if ((countSubscriptions.get(tenantId)?.n ?? 0) >= maxPerTenant) return 'limit';
    insertSubscription.run({ tenantId, ...subscription, events: JSON.stringify(subscription.events) });
    return 'created';
  });
  const deleteInTransaction = db.transaction((tenantId: string, id: string): boolean => {
    if (deleteSubscription.run(tenantId, id).changes === 0) return false;
    deleteDeliveriesOf.run(tenantId, id);
    return true;
  });

  return {
    async createSubscription(tenantId, subscription, maxPerTenant) {
      assertTenantId(tenantId);
      assertCount(maxPerTenant, 'maxPerTenant');
      return createInTransaction.immediate(tenantId, checkedSubscription(subscription), maxPerTenant);
    },
    async getSubscription(tenantId, id) {
      assertTenantId(tenantId);
      assertId(id, 'subscription id');
      const row = subscriptionById.get(tenantId, id);
      return row === undefined ? null : toSubscription(row);
    },
    async listSubscriptions(tenantId, page, size) {
      assertTenantId(tenantId);
      assertPage(page, size);
      return { items: subscriptionPage.all(tenantId, size, page * size).map(toSubscription), total: countSubscriptions.get(tenantId)?.n ?? 0 };
    },
    async subscriptionsOf(tenantId) {
      assertTenantId(tenantId);
      return subscriptionPage.all(tenantId, -1, 0).map(toSubscription);
    },
    async deleteSubscription(tenantId, id) {
      assertTenantId(tenantId);
      assertId(id, 'subscription id');
      return deleteInTransaction.immediate(tenantId, id);
    },
    async cursor(tenantId) {
      assertTenantId(tenantId);
      return cursorOf.get(tenantId)?.seq ?? null;
    },
    async advanceCursor(tenantId, seq) {
      assertTenantId(tenantId);
      assertCount(seq, 'seq');
      advance.run(tenantId, seq);
    },
    async followedTenants(afterTenantId, limit) {
      assertCount(limit, 'limit');
      return followed.all(afterTenantId ?? '', limit).map((row) => row.tenant_id);
    },
    async addDelivery(tenantId, delivery) {
      assertTenantId(tenantId);
      const checked = checkedDelivery(delivery);
      insertDelivery.run({ tenantId, ...checked });
      return toDelivery(deliveryById.get(tenantId, checked.id)!);
    },
    async getDelivery(tenantId, id) {
      assertTenantId(tenantId);
      assertId(id, 'delivery id');
      const row = deliveryById.get(tenantId, id);
      return row === undefined ? null : toDelivery(row);
    },
    async recordOutcome(tenantId, id, outcome) {
      assertTenantId(tenantId);
      assertId(id, 'delivery id');
      recordOutcome.run({ tenantId, id, ...checkedOutcome(outcome) });
    },
    async markPending(tenantId, id, at, attemptsMade) {
      assertTenantId(tenantId);
      assertId(id, 'delivery id');
      assertCount(attemptsMade, 'attemptsMade');
      markPending.run(normaliseInstant(at, 'at'), tenantId, id, attemptsMade);
    },
    async overdueDeliveries(tenantId, dueBefore, limit) {
      assertTenantId(tenantId);
      assertCount(limit, 'limit');
      return overdue.all(tenantId, normaliseInstant(dueBefore, 'dueBefore'), limit).map(toDelivery);
    },
    async listDeliveries(tenantId, subscriptionId, page, size) {
      assertTenantId(tenantId);
      assertId(subscriptionId, 'subscription id');
      assertPage(page, size);
      return {
        items: deliveryPage.all(tenantId, subscriptionId, size, page * size).map(toDelivery),
        total: countDeliveries.get(tenantId, subscriptionId)?.n ?? 0,
      };
    },
    async pruneDeliveries(tenantId, subscriptionId, keep) {
      assertTenantId(tenantId);
      assertId(subscriptionId, 'subscription id');
      assertCount(keep, 'keep');
      prune.run(tenantId, subscriptionId, tenantId, subscriptionId, keep);
    },
  };
}
