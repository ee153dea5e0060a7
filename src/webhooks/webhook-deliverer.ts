import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from './webhook-signature.js';
import type { SendResult, WebhookPost } from './webhook-sender.js';
import type { DeliveryOutcome, WebhookRepository } from './webhook-store.js';

export interface DeliveryAttempt {
  /** No attempt follows this one when it fails (the delivery is then DEAD). */
  last: boolean;
  /** When the next attempt runs if this one fails (ignored for the last). */
  retryInMs: number;
}

export interface WebhookDelivererDeps {
  webhooks: Pick<WebhookRepository, 'getDelivery' | 'getSubscription' | 'recordOutcome'>;
  send(post: WebhookPost): Promise<SendResult>;
  now?: () => Date;
}

/** An attempt that failed and is to be tried again (the job's retry does). */
export class DeliveryAttemptFailed extends Error {
  override readonly name = 'DeliveryAttemptFailed';
}

export interface WebhookDeliverer {
  /**
   * Sends the delivery once, signed with its subscription's secret now, and keeps the outcome.
   * Throws DeliveryAttemptFailed when it failed and another attempt follows. A delivery or
   * subscription that is gone (pruned, deleted) is nothing to do.
   */
  attempt(tenantId: string, deliveryId: string, attempt: DeliveryAttempt): Promise<void>;
}

export function createWebhookDeliverer(deps: WebhookDelivererDeps): WebhookDeliverer {
  const now = deps.now ?? (() => new Date());
  return {
    async attempt(tenantId, deliveryId, { last, retryInMs }) {
      const delivery = await deps.webhooks.getDelivery(tenantId, deliveryId);
      if (delivery === null) return;
      const subscription = await deps.webhooks.getSubscription(tenantId, delivery.subscriptionId);
      if (subscription === null) return;
      const at = now();
      const result = await deps.send({
        url: subscription.url,
        body: delivery.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'policy-engine-webhooks',
          [DELIVERY_ID_HEADER]: delivery.id,
          [SIGNATURE_HEADER]: signatureHeader(subscription.secret, delivery.body, Math.floor(at.getTime() / 1000)),
        },
      });
      const succeeded = 'statusCode' in result && result.statusCode >= 200 && result.statusCode < 300;
      const outcome: DeliveryOutcome = {
        status: succeeded ? 'SUCCEEDED' : last ? 'DEAD' : 'FAILED',
        attempts: delivery.attempts + 1,
        lastStatusCode: 'statusCode' in result ? result.statusCode : null,
        lastError: 'error' in result ? result.error : succeeded ? null : `HTTP ${result.statusCode}`,
        nextAttemptAt: succeeded || last ? null : new Date(now().getTime() + retryInMs).toISOString(),
      };
      await deps.webhooks.recordOutcome(tenantId, deliveryId, outcome);
      if (outcome.status === 'FAILED') throw new DeliveryAttemptFailed(`delivery ${deliveryId}: ${outcome.lastError}`);
    },
  };
}
