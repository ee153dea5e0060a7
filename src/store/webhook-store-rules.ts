import type { DeliveryOutcome, WebhookDelivery, WebhookSubscription } from '../webhooks/webhook-store.js';
import { StoreArgumentError } from './store-argument-error.js';
import { normaliseInstant } from './store-rules.js';

/** The checks both adapters make of webhook records, so they refuse the same input. */

export function assertId(id: string, name: string): void {
  if (typeof id !== 'string' || id.length === 0) throw new StoreArgumentError(`${name} must be a non-empty string`);
}

export function assertPage(page: number, size: number): void {
  if (!Number.isSafeInteger(page) || page < 0) throw new StoreArgumentError('page must be a non-negative integer');
  if (!Number.isSafeInteger(size) || size < 1) throw new StoreArgumentError('size must be a positive integer');
}

export function assertCount(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new StoreArgumentError(`${name} must be a non-negative integer`);
}

/** The subscription with its instant in `toISOString()` form. */
export function checkedSubscription(subscription: WebhookSubscription): WebhookSubscription {
  assertId(subscription.id, 'subscription id');
  if (typeof subscription.url !== 'string' || subscription.url.length === 0) throw new StoreArgumentError('url must be a non-empty string');
  if (!Array.isArray(subscription.events) || subscription.events.length === 0) throw new StoreArgumentError('events must be a non-empty list');
  assertId(subscription.secret, 'secret');
  return { ...subscription, createdAt: normaliseInstant(subscription.createdAt, 'createdAt') };
}

export function checkedOutcome(outcome: DeliveryOutcome): DeliveryOutcome {
  if (!Number.isSafeInteger(outcome.attempts) || outcome.attempts < 0) throw new StoreArgumentError('attempts must be a non-negative integer');
  return { ...outcome, nextAttemptAt: outcome.nextAttemptAt === null ? null : normaliseInstant(outcome.nextAttemptAt, 'nextAttemptAt') };
}

/** The delivery with its instants in `toISOString()` form. */
export function checkedDelivery(delivery: WebhookDelivery): WebhookDelivery {
  assertId(delivery.id, 'delivery id');
  assertId(delivery.subscriptionId, 'subscription id');
  assertId(delivery.eventId, 'event id');
  return { ...delivery, ...checkedOutcome(delivery), createdAt: normaliseInstant(delivery.createdAt, 'createdAt') };
}
