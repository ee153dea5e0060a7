// The sweep of deliveries whose jobs were lost, on a real (in-memory SQLite) store: only PENDING
// and FAILED deliveries long past their due time are queued again, a bounded number per tenant.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import { createStrandedSweep, STRANDED_AFTER_MS, STRANDED_PER_TENANT } from '../stranded-deliveries.js';
import type { WebhookDelivery } from '../webhook-store.js';

const NOW = Date.parse('2026-05-01T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

const delivery = (id: string, spec: Partial<WebhookDelivery>): WebhookDelivery => ({
  id,
  subscriptionId: 's',
  eventId: `e-${id}`,
  eventType: 'POLICY_DEPLOYED',
  body: '{}',
  status: 'PENDING',
  attempts: 0,
  lastStatusCode: null,
  lastError: null,
  nextAttemptAt: null,
  createdAt: ago(STRANDED_AFTER_MS * 2),
  ...spec,
});

const subscribe = (tenantId: string, id = 's') =>
  store.webhooks.createSubscription(
    tenantId,
    { id, url: `https://hooks.example.com/${id}`, events: ['POLICY_DEPLOYED'], secret: `whsec_${id}`, actorId: 'alice', createdAt: ago(STRANDED_AFTER_MS * 3) },
    10,
  );

let store: SqliteStore;

describe('the stranded deliveries sweep', () => {
  let requeued: string[];

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    requeued = [];
  });
  afterEach(() => store.close());

  const sweep = () =>
    createStrandedSweep({
      webhooks: store.webhooks,
      requeue: async (tenantId, found) => void requeued.push(`${tenantId}/${found.id}/${found.attempts}`),
      onError: (error) => {
        throw error;
      },
      now: () => new Date(NOW),
    });

  it('queues again the deliveries long overdue, and leaves those merely late, done or dead', async () => {
    await store.webhooks.advanceCursor('acme', 0);
    await subscribe('acme');
    await subscribe('unfollowed');
    await store.webhooks.addDelivery('acme', delivery('never-queued', { nextAttemptAt: ago(STRANDED_AFTER_MS + 1) }));
    await store.webhooks.addDelivery('acme', delivery('retry-lost', { status: 'FAILED', attempts: 2, nextAttemptAt: ago(STRANDED_AFTER_MS * 3) }));
    await store.webhooks.addDelivery('acme', delivery('late', { nextAttemptAt: ago(STRANDED_AFTER_MS - 1) }));
    await store.webhooks.addDelivery('acme', delivery('done', { status: 'SUCCEEDED', attempts: 1 }));
    await store.webhooks.addDelivery('acme', delivery('dead', { status: 'DEAD', attempts: 8 }));
    // A tenant without a cursor is no tenant the rounds follow.
    await store.webhooks.addDelivery('unfollowed', delivery('x', { nextAttemptAt: ago(STRANDED_AFTER_MS * 3) }));

    expect(await sweep().round(null)).toEqual({ next: null, tenants: 1, requeued: 2, dropped: 0 });
    expect(requeued).toEqual(['acme/retry-lost/2', 'acme/never-queued/0']);
  });

  it('queues at most a bound of one tenant\'s deliveries a round', async () => {
    await store.webhooks.advanceCursor('busy', 0);
    await store.webhooks.advanceCursor('other', 0);
    await subscribe('busy');
    await subscribe('other');
    for (let i = 0; i < STRANDED_PER_TENANT + 5; i += 1) await store.webhooks.addDelivery('busy', delivery(`b${i}`, { nextAttemptAt: ago(STRANDED_AFTER_MS + 1000 + i) }));
    await store.webhooks.addDelivery('other', delivery('o', { nextAttemptAt: ago(STRANDED_AFTER_MS + 1) }));
    const round = await sweep().round(null);
    expect(round.requeued).toBe(STRANDED_PER_TENANT + 1);
    expect(requeued.filter((r) => r.startsWith('busy/'))).toHaveLength(STRANDED_PER_TENANT);
    expect(requeued).toContain('other/o/0');
  });

  it('drops the deliveries of a subscription deleted meanwhile, so later rounds no longer find them', async () => {
    await store.webhooks.advanceCursor('acme', 0);
    await subscribe('acme', 'kept');
    await store.webhooks.addDelivery('acme', delivery('live', { subscriptionId: 'kept', nextAttemptAt: ago(STRANDED_AFTER_MS + 1) }));
    // A delivery the follower stored just after its subscription was deleted.
    await store.webhooks.addDelivery('acme', delivery('orphan', { subscriptionId: 'deleted', nextAttemptAt: ago(STRANDED_AFTER_MS * 3) }));
    // A bystander's subscription of the same id is no reason to keep it.
    await subscribe('bystander', 'deleted');

    expect(await sweep().round(null)).toEqual({ next: null, tenants: 1, requeued: 1, dropped: 1 });
    expect(requeued).toEqual(['acme/live/0']);
    expect(await store.webhooks.getDelivery('acme', 'orphan')).toBeNull();
    expect(await store.webhooks.getDelivery('acme', 'live')).not.toBeNull();

    requeued = [];
    expect(await sweep().round(null)).toEqual({ next: null, tenants: 1, requeued: 1, dropped: 0 });
    expect(requeued).toEqual(['acme/live/0']);
  });
});
