import type { WebhookEventType } from './webhook-events.js';

/** A tenant's subscription, with the secret its deliveries are signed with (shown to its creator once). */
export interface WebhookSubscription {
  id: string;
  url: string;
  events: WebhookEventType[];
  secret: string;
  actorId: string;
  createdAt: string;
}

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'DEAD'] as const;
/** PENDING: not yet tried (or redelivery asked); FAILED: the last attempt failed, another follows; DEAD: no attempt follows. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What became of one attempt, as the delivery keeps it. */
export interface DeliveryOutcome {
  status: DeliveryStatus;
  /** Attempts made so far, this one included. */
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** When the next attempt is due (a new delivery: its creation); null once none follows. */
  nextAttemptAt: string | null;
}

/** One event for one subscription, and how its attempts went. */
export interface WebhookDelivery extends DeliveryOutcome {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: WebhookEventType;
  /** The JSON text every attempt sends. */
  body: string;
  createdAt: string;
}

export interface StoredPage<T> {
  items: T[];
  total: number;
}

/**
 * Subscriptions, their deliveries and where each subscribed tenant's audit chain was last read. Every
 * method takes the tenant explicitly; lists are bounded (subscriptions by the tenant quota, deliveries
 * by `prune`), and the one read across tenants (`followedTenants`) pages an indexed range.
 */
export interface WebhookRepository {
  /**
   * Stores the subscription unless the tenant has `maxPerTenant` already (then 'limit', nothing
   * stored); concurrent creates of one tenant never pass the quota together.
   */
  createSubscription(tenantId: string, subscription: WebhookSubscription, maxPerTenant: number): Promise<'created' | 'limit'>;
  getSubscription(tenantId: string, id: string): Promise<WebhookSubscription | null>;
  /** Oldest first, `size` from `page × size`. */
  listSubscriptions(tenantId: string, page: number, size: number): Promise<StoredPage<WebhookSubscription>>;
  /** Every subscription of the tenant (at most its quota), oldest first. */
  subscriptionsOf(tenantId: string): Promise<WebhookSubscription[]>;
  /** Removes the subscription and its deliveries; false when the tenant has none of that id. */
  deleteSubscription(tenantId: string, id: string): Promise<boolean>;

  /** The seq up to which the tenant's chain was read, or null when it never had a subscription. */
  cursor(tenantId: string): Promise<number | null>;
  /**
   * Moves the tenant's cursor to `seq` unless it is there or further already (creating it at the
   * first). Of two racing advances, a backend without atomic updates (FerretDB) may keep the lower:
   * the records between are then read again, which dispatch tolerates.
   */
  advanceCursor(tenantId: string, seq: number): Promise<void>;
  /** Tenants with a cursor, by ascending id after `afterTenantId` (null: from the first), at most `limit`. */
  followedTenants(afterTenantId: string | null, limit: number): Promise<string[]>;

  /** Stores the delivery unless one of its id exists; returns the stored one either way. */
  addDelivery(tenantId: string, delivery: WebhookDelivery): Promise<WebhookDelivery>;
  getDelivery(tenantId: string, id: string): Promise<WebhookDelivery | null>;
  /** Keeps an attempt's outcome unless one of as many attempts or more is stored (a late writer changes nothing). */
  recordOutcome(tenantId: string, id: string, outcome: DeliveryOutcome): Promise<void>;
  /**
   * A redelivery asked for when `attemptsMade` attempts were made: PENDING, its next attempt at `at`,
   * its attempts kept; unless another attempt was made since (then its outcome stands: the
   * redelivery asked for may be the one that made it).
   */
  markPending(tenantId: string, id: string, at: string, attemptsMade: number): Promise<void>;
  /**
   * The tenant's PENDING and FAILED deliveries whose next attempt was due before `dueBefore`, the
   * longest overdue first, at most `limit`: an indexed range, for the sweep that queues again the
   * attempts whose jobs were lost.
   */
  overdueDeliveries(tenantId: string, dueBefore: string, limit: number): Promise<WebhookDelivery[]>;
  /** The subscription's deliveries, newest first. */
  listDeliveries(tenantId: string, subscriptionId: string, page: number, size: number): Promise<StoredPage<WebhookDelivery>>;
  /** Removes the subscription's deliveries but the newest `keep`. */
  pruneDeliveries(tenantId: string, subscriptionId: string, keep: number): Promise<void>;
}
