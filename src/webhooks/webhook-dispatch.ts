import { createHash } from 'node:crypto';
import type { WebhookEvent } from './webhook-events.js';
import type { WebhookDelivery, WebhookRepository } from './webhook-store.js';

/**
 * A delivery's id, made of its subscription and its event: whoever finds the event again (the
 * follower after a crash, the resume sweep after the runner) makes the same delivery, stored once.
 */
export function deliveryIdOf(subscriptionId: string, eventId: string): string {
  return `dlv_${createHash('sha256').update(`${subscriptionId}\n${eventId}`).digest('hex').slice(0, 32)}`;
}

export interface WebhookDispatchDeps {
  webhooks: Pick<WebhookRepository, 'subscriptionsOf' | 'addDelivery' | 'pruneDeliveries'>;
  /** Queues the delivery's first attempt (a no-op while a job for it exists). */
  enqueue(tenantId: string, deliveryId: string): Promise<void>;
  /** Deliveries kept per subscription (WEBHOOK_DELIVERIES_KEPT). */
  keepDeliveries: number;
  now?: () => Date;
}

export interface WebhookDispatch {
  /** Stores a delivery of the event for each subscription that takes it, and queues the ones never tried. Safe to repeat. */
  dispatch(tenantId: string, event: WebhookEvent): Promise<number>;
}

export function createWebhookDispatch(deps: WebhookDispatchDeps): WebhookDispatch {
  const now = deps.now ?? (() => new Date());
  return {
    async dispatch(tenantId, event) {
      let queued = 0;
      const body = JSON.stringify(event);
      for (const subscription of await deps.webhooks.subscriptionsOf(tenantId)) {
        // A subscription hears of what happens from its creation on, not of what happened before.
        if (!subscription.events.includes(event.type) || Date.parse(event.occurredAt) < Date.parse(subscription.createdAt)) continue;
        const createdAt = now().toISOString();
        const delivery: WebhookDelivery = {
          id: deliveryIdOf(subscription.id, event.id),
          subscriptionId: subscription.id,
          eventId: event.id,
          eventType: event.type,
          body,
          createdAt,
          status: 'PENDING',
          attempts: 0,
          lastStatusCode: null,
          lastError: null,
          nextAttemptAt: createdAt,
        };
        const stored = await deps.webhooks.addDelivery(tenantId, delivery);
        // Stored earlier and tried since: its own job carries it on. Never tried: its job may have been lost with the process.
        if (stored.status !== 'PENDING' || stored.attempts > 0) continue;
        await deps.enqueue(tenantId, stored.id);
        queued += 1;
        await deps.webhooks.pruneDeliveries(tenantId, subscription.id, deps.keepDeliveries);
      }
      return queued;
    },
  };
}
