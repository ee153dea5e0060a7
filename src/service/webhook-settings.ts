import { redisConnection, type Config } from '../config/index.js';
import type { StoredWorkflowEvent, WorkflowRecord } from '../workflows/index.js';
import { createWebhookDispatch, createWebhookJobQueue, workflowEndEventOf, type DeliveryRetries, type DestinationRules, type WebhookDispatch, type WebhookJobQueue } from '../webhooks/index.js';
import type { Runtime } from './runtime.js';

/** Where deliveries may go, as the configuration says. */
export function destinationRulesOf(config: Config): DestinationRules {
  return { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS };
}

export function deliveryRetriesOf(config: Config): DeliveryRetries {
  return { attempts: config.WEBHOOK_MAX_ATTEMPTS, backoffMs: config.WEBHOOK_BACKOFF_BASE_MS };
}

export function webhookJobQueueOf(config: Config): WebhookJobQueue {
  return createWebhookJobQueue({ connection: redisConnection(config), prefix: config.REDIS_KEY_PREFIX, retries: deliveryRetriesOf(config) });
}

/** What turns an event into stored deliveries and queued jobs, over the process's store and `queue`. */
export function webhookDispatchOf(runtime: Runtime, queue: WebhookJobQueue): WebhookDispatch {
  return createWebhookDispatch({
    webhooks: runtime.store.webhooks,
    enqueue: (tenantId, deliveryId) => queue.enqueue(tenantId, deliveryId),
    keepDeliveries: runtime.config.WEBHOOK_DELIVERIES_KEPT,
  });
}

/** The workflow runner's and resume sweep's `announceEnd`: the end's webhooks dispatched. */
export function webhookAnnouncerOf(dispatch: WebhookDispatch): (tenantId: string, record: WorkflowRecord, ended: StoredWorkflowEvent) => Promise<void> {
  return async (tenantId, record, ended) => {
    const event = workflowEndEventOf(record, ended);
    if (event !== null) await dispatch.dispatch(tenantId, event);
  };
}
