import type { Db } from 'mongodb';
import type { WebhookEventType } from '../../webhooks/webhook-events.js';
import type { WebhookDelivery, WebhookRepository, WebhookSubscription } from '../../webhooks/webhook-store.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { assertCount, assertId, assertPage, checkedDelivery, checkedOutcome, checkedSubscription } from '../webhook-store-rules.js';
import { isDuplicateKey } from './duplicate-key.js';
import {
  WEBHOOK_COLLECTIONS,
  type WebhookCursorDocument,
  type WebhookDeliveryDocument,
  type WebhookSubscriptionDocument,
} from './mongo-webhook-collections.js';

/** Deliveries removed per delete while pruning (a subscription exceeds its bound by a few at a time). */
const PRUNE_BATCH = 1000;

function toSubscription(doc: WebhookSubscriptionDocument): WebhookSubscription {
  return { id: doc.id, url: doc.url, events: doc.events as WebhookEventType[], secret: doc.secret, actorId: doc.actorId, createdAt: doc.createdAt };
}

function toDelivery(doc: WebhookDeliveryDocument): WebhookDelivery {
  return {
    id: doc.id,
    subscriptionId: doc.subscriptionId,
    eventId: doc.eventId,
    eventType: doc.eventType as WebhookEventType,
    body: doc.body,
    status: doc.status,
    attempts: doc.attempts,
    lastStatusCode: doc.lastStatusCode,
    lastError: doc.lastError,
    nextAttemptAt: doc.nextAttemptAt,
    createdAt: doc.createdAt,
  };
}

const byCreation = { createdAt: 1, _id: 1 } as const;
const newestFirst = { createdAt: -1, _id: -1 } as const;

export function createMongoWebhookRepository(db: Db): WebhookRepository {
  const subscriptions = db.collection<WebhookSubscriptionDocument>(WEBHOOK_COLLECTIONS.subscriptions);
  const deliveries = db.collection<WebhookDeliveryDocument>(WEBHOOK_COLLECTIONS.deliveries);
  const cursors = db.collection<WebhookCursorDocument>(WEBHOOK_COLLECTIONS.cursors);
  const deliveryKey = (tenantId: string, id: string) => `${tenantId}:${id}`;

  return {
    async createSubscription(tenantId, subscription, maxPerTenant) {
      assertTenantId(tenantId);
      assertCount(maxPerTenant, 'maxPerTenant');
      const checked = checkedSubscription(subscription);
      const taken = new Set((await subscriptions.find({ tenantId }, { projection: { slot: 1 } }).toArray()).map((doc) => doc.slot));
      // Each free slot in turn: a concurrent create that took one first makes this insert a duplicate.
      for (let slot = 0; slot < maxPerTenant; slot += 1) {
        if (taken.has(slot)) continue;
        try {
          await subscriptions.insertOne({ _id: `${tenantId}:${slot}`, tenantId, slot, ...checked });
          return 'created';
        } catch (error) {
          if (!isDuplicateKey(error)) throw error;
        }
      }
      return 'limit';
    },
    async getSubscription(tenantId, id) {
      assertTenantId(tenantId);
      assertId(id, 'subscription id');
      const doc = await subscriptions.findOne({ tenantId, id });
      return doc === null ? null : toSubscription(doc);
    },
    async listSubscriptions(tenantId, page, size) {
      assertTenantId(tenantId);
      assertPage(page, size);
      const docs = await subscriptions.find({ tenantId }).sort(byCreation).skip(page * size).limit(size).toArray();
      return { items: docs.map(toSubscription), total: await subscriptions.countDocuments({ tenantId }) };
    },
    async subscriptionsOf(tenantId) {
      assertTenantId(tenantId);
      return (await subscriptions.find({ tenantId }).sort(byCreation).toArray()).map(toSubscription);
    },
    async deleteSubscription(tenantId, id) {
      assertTenantId(tenantId);
      assertId(id, 'subscription id');
      const doc = await subscriptions.findOne({ tenantId, id }, { projection: { _id: 1 } });
      if (doc === null || (await subscriptions.deleteOne({ _id: doc._id, id })).deletedCount === 0) return false;
      await deliveries.deleteMany({ tenantId, subscriptionId: id });
      return true;
    },
    async cursor(tenantId) {
      assertTenantId(tenantId);
      return (await cursors.findOne({ _id: tenantId }))?.seq ?? null;
    },
    async advanceCursor(tenantId, seq) {
      assertTenantId(tenantId);
      assertCount(seq, 'seq');
      // Only ever forward: a writer that lost a race to a further cursor changes nothing.
      if ((await cursors.updateOne({ _id: tenantId, seq: { $lt: seq } }, { $set: { seq } })).matchedCount > 0) return;
      try {
        await cursors.insertOne({ _id: tenantId, seq });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    },
    async followedTenants(afterTenantId, limit) {
      assertCount(limit, 'limit');
      const filter = afterTenantId === null ? {} : { _id: { $gt: afterTenantId } };
      return (await cursors.find(filter, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(limit).toArray()).map((doc) => doc._id);
    },
    async addDelivery(tenantId, delivery) {
      assertTenantId(tenantId);
      const checked = checkedDelivery(delivery);
      const _id = deliveryKey(tenantId, checked.id);
      try {
        await deliveries.insertOne({ _id, tenantId, ...checked });
        return checked;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const stored = await deliveries.findOne({ _id });
      if (stored === null) throw new Error(`delivery ${checked.id} was refused as a duplicate but cannot be read`);
      return toDelivery(stored);
    },
    async getDelivery(tenantId, id) {
      assertTenantId(tenantId);
      assertId(id, 'delivery id');
      const doc = await deliveries.findOne({ _id: deliveryKey(tenantId, id) });
      return doc === null ? null : toDelivery(doc);
    },
    async recordOutcome(tenantId, id, outcome) {
      assertTenantId(tenantId);
      assertId(id, 'delivery id');
      const checked = checkedOutcome(outcome);
      await deliveries.updateOne({ _id: deliveryKey(tenantId, id), attempts: { $lt: checked.attempts } }, { $set: checked });
    },
    async markPending(tenantId, id, at, attemptsMade) {
      assertTenantId(tenantId);
      assertId(id, 'delivery id');
      assertCount(attemptsMade, 'attemptsMade');
      await deliveries.updateOne({ _id: deliveryKey(tenantId, id), attempts: attemptsMade }, { $set: { status: 'PENDING', nextAttemptAt: normaliseInstant(at, 'at') } });
    },
    async overdueDeliveries(tenantId, dueBefore, limit) {
      assertTenantId(tenantId);
      assertCount(limit, 'limit');
      const filter = { tenantId, status: { $in: ['PENDING' as const, 'FAILED' as const] }, nextAttemptAt: { $lt: normaliseInstant(dueBefore, 'dueBefore') } };
      return (await deliveries.find(filter).sort({ nextAttemptAt: 1 }).limit(limit).toArray()).map(toDelivery);
    },
    async listDeliveries(tenantId, subscriptionId, page, size) {
      assertTenantId(tenantId);
      assertId(subscriptionId, 'subscription id');
      assertPage(page, size);
      const filter = { tenantId, subscriptionId };
      const docs = await deliveries.find(filter).sort(newestFirst).skip(page * size).limit(size).toArray();
      return { items: docs.map(toDelivery), total: await deliveries.countDocuments(filter) };
    },
    async pruneDeliveries(tenantId, subscriptionId, keep) {
      assertTenantId(tenantId);
      assertId(subscriptionId, 'subscription id');
      assertCount(keep, 'keep');
      const old = await deliveries.find({ tenantId, subscriptionId }, { projection: { _id: 1 } }).sort(newestFirst).skip(keep).limit(PRUNE_BATCH).toArray();
      if (old.length > 0) await deliveries.deleteMany({ _id: { $in: old.map((doc) => doc._id) } });
    },
  };
}
