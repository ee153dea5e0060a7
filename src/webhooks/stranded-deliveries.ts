import type { WebhookDelivery, WebhookRepository } from './webhook-store.js';

/** How long past its due time an attempt must be before the sweep takes its job for lost. */
export const STRANDED_AFTER_MS = 10 * 60_000;
/** Deliveries of one tenant a round queues again at most; the next round takes the next ones. */
export const STRANDED_PER_TENANT = 100;
/** Tenants one round goes through at most. */
const TENANTS_PER_ROUND = 200;

export interface StrandedSweepDeps {
  webhooks: Pick<WebhookRepository, 'followedTenants' | 'overdueDeliveries' | 'subscriptionsOf' | 'pruneDeliveries'>;
  /** Queues the delivery's remaining attempts again (a no-op while a job of that sweep for it exists). */
  requeue(tenantId: string, delivery: WebhookDelivery): Promise<void>;
  onError(error: unknown, tenantId: string): void;
  /** Default STRANDED_AFTER_MS. */
  strandedAfterMs?: number;
  now?: () => Date;
}

export interface StrandedRound {
  next: string | null;
  tenants: number;
  requeued: number;
  /** Overdue deliveries dropped because their subscription is gone. */
  dropped: number;
}

export interface StrandedSweep {
  round(after: string | null): Promise<StrandedRound>;
}

/**
 * A delivery's attempts live in Redis (its `webhook-deliver` job), its status in the store. When
 * Redis loses its data, or a process died between storing a delivery and queuing it, a PENDING
 * or FAILED delivery has no job left: this sweep finds those whose next attempt is long overdue
 * (through an index of the deliveries still to be tried) and queues their remaining attempts
 * again. An attempt merely late behind a busy queue is not yet overdue by that much; if it is,
 * the spare job sends the delivery once more, which receivers de-duplicate by its id. A delivery
 * stored just after its subscription was deleted would be found overdue by every round (its job
 * finds no subscription and leaves it as it is): the sweep removes the deliveries of a subscription
 * the tenant no longer has, so they stop taking the tenant's places in the rounds.
 */
export function createStrandedSweep(deps: StrandedSweepDeps): StrandedSweep {
  const now = deps.now ?? (() => new Date());
  const strandedAfterMs = deps.strandedAfterMs ?? STRANDED_AFTER_MS;
  return {
    async round(after) {
      const tenants = await deps.webhooks.followedTenants(after, TENANTS_PER_ROUND);
      const round: StrandedRound = { next: tenants.length < TENANTS_PER_ROUND ? null : tenants.at(-1)!, tenants: tenants.length, requeued: 0, dropped: 0 };
      const dueBefore = new Date(now().getTime() - strandedAfterMs).toISOString();
      for (const tenantId of tenants) {
        try {
          const overdue = await deps.webhooks.overdueDeliveries(tenantId, dueBefore, STRANDED_PER_TENANT);
          if (overdue.length === 0) continue;
          const subscribed = new Set((await deps.webhooks.subscriptionsOf(tenantId)).map((subscription) => subscription.id));
          const gone = new Set<string>();
          for (const delivery of overdue) {
            if (subscribed.has(delivery.subscriptionId)) {
              await deps.requeue(tenantId, delivery);
              round.requeued += 1;
            } else {
              gone.add(delivery.subscriptionId);
              round.dropped += 1;
            }
          }
          for (const subscriptionId of gone) await deps.webhooks.pruneDeliveries(tenantId, subscriptionId, 0);
        } catch (error) {
          deps.onError(error, tenantId);
        }
      }
      return round;
    },
  };
}
