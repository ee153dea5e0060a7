export { createChainFollower, type ChainFollower, type ChainRound } from './chain-follower.js';
export { createWebhookDeliverer, type WebhookDeliverer } from './webhook-deliverer.js';
export { createWebhookDispatch, type WebhookDispatch } from './webhook-dispatch.js';
export { WebhookError, WebhookErrorCode } from './webhook-errors.js';
export { WEBHOOK_EVENT_TYPES, workflowEndEventOf, type WebhookEventType } from './webhook-events.js';
export { postWebhook } from './webhook-sender.js';
export { createStrandedSweep, type StrandedSweep } from './stranded-deliveries.js';
export {
  createWebhookService,
  subscriptionBodySchema,
  type DeliveryView,
  type SubscriptionView,
  type WebhookService,
} from './webhook-service.js';
export {
  DELIVERY_STATUSES,
  type DeliveryOutcome,
  type DeliveryStatus,
  type StoredPage,
  type WebhookDelivery,
  type WebhookRepository,
  type WebhookSubscription,
} from './webhook-store.js';
export { WEBHOOK_URL_MAX_LENGTH, type DestinationRules } from './webhook-url.js';
export { startRoundSchedule, type RoundSchedule } from './queue/round-schedule.js';
export { createWebhookJobQueue, startWebhookWorker, type DeliveryRetries, type WebhookJobQueue, type WebhookWorker } from './queue/webhook-jobs.js';
