import type { Db, IndexDescription } from 'mongodb';
import type { DeliveryStatus } from '../../webhooks/webhook-store.js';

/** Collections of webhook subscriptions, their deliveries and the tenants' chain cursors. */
export const WEBHOOK_COLLECTIONS = {
  subscriptions: 'webhook_subscriptions',
  deliveries: 'webhook_deliveries',
  cursors: 'webhook_cursors',
} as const;

/**
 * `_id` is `<tenant>:<slot>`, a slot below WEBHOOK_MAX_PER_TENANT: the quota is the unique `_id`,
 * so concurrent creates of one tenant cannot pass it together (no transaction needed).
 */
export interface WebhookSubscriptionDocument {
  _id: string;
  tenantId: string;
  slot: number;
  id: string;
  url: string;
  events: string[];
  secret: string;
  actorId: string;
  createdAt: string;
}

/** `_id` is `<tenant>:<delivery id>`: a delivery stored twice is a duplicate key, and a lookup is an `_id` equality. */
export interface WebhookDeliveryDocument {
  _id: string;
  tenantId: string;
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/** `_id` is the tenant id. */
export interface WebhookCursorDocument {
  _id: string;
  seq: number;
}

export const WEBHOOK_INDEXES: Record<string, IndexDescription[]> = {
  [WEBHOOK_COLLECTIONS.subscriptions]: [{ key: { tenantId: 1, id: 1 }, name: 'tenant_id_unique', unique: true }],
  [WEBHOOK_COLLECTIONS.deliveries]: [
    { key: { tenantId: 1, subscriptionId: 1, createdAt: -1, _id: -1 }, name: 'tenant_subscription_created' },
    { key: { tenantId: 1, status: 1, nextAttemptAt: 1 }, name: 'tenant_status_due' },
  ],
};

/** Creates the indexes (idempotent), one per command as ensureIndexes does for FerretDB's sake. */
export async function ensureWebhookIndexes(db: Db): Promise<void> {
  for (const [collection, indexes] of Object.entries(WEBHOOK_INDEXES)) {
    for (const index of indexes) await db.collection(collection).createIndexes([index]);
  }
}
