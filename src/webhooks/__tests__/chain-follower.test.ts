// The chain follower on a real (in-memory SQLite) store: each tenant's events are read from its
// cursor by type, a tenant's backlog a window per round while the others have their turn, the
// cursor passes only what was dispatched, and records above the head read first wait.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRecords, type RecordSpec } from '../../../test/support/audit-records.js';
import { linkChain } from '../../../test/support/link-chain.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import { createChainFollower, FOLLOW_RECORDS_PER_TENANT } from '../chain-follower.js';
import type { WebhookEvent } from '../webhook-events.js';
import type { WebhookSubscription } from '../webhook-store.js';

const subscription = (id: string, events: WebhookSubscription['events']): WebhookSubscription => ({
  id,
  url: `https://hooks.example.com/${id}`,
  events,
  secret: 'whsec_x',
  actorId: 'alice',
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('the chain follower', () => {
  let store: SqliteStore;
  let dispatched: Array<[string, WebhookEvent]>;
  let errors: unknown[];

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    dispatched = [];
    errors = [];
  });
  afterEach(() => store.close());

  const follower = (dispatch = async (tenantId: string, event: WebhookEvent) => void dispatched.push([tenantId, event])) =>
    createChainFollower({ audit: store.audit, webhooks: store.webhooks, dispatch, onError: (error) => errors.push(error) });

  async function append(tenantId: string, specs: RecordSpec[]) {
    await linkChain(store, tenantId, buildRecords(await store.audit.head(tenantId), specs));
  }
  const many = (count: number, eventType: string): RecordSpec[] => Array.from({ length: count }, (_, i) => ({ eventType, payload: { policyModule: 'm', version: i + 1 } }));

  it('dispatches the subscribed types from the cursor on, a window of a busy tenant per round while another has its turn', async () => {
    await store.webhooks.createSubscription('busy', subscription('s-busy', ['POLICY_DEPLOYED']), 10);
    await store.webhooks.createSubscription('quiet', subscription('s-quiet', ['ANOMALY_DETECTED', 'POLICY_ROLLED_BACK']), 10);
    // What happened before the first subscription is behind the cursor.
    await append('busy', many(3, 'POLICY_DEPLOYED'));
    await store.webhooks.advanceCursor('busy', 3);
    await store.webhooks.advanceCursor('quiet', 0);
    await append('busy', [...many(150, 'POLICY_DEPLOYED'), ...many(50, 'POLICY_EVALUATED'), ...many(100, 'POLICY_DEPLOYED')]);
    await append('quiet', [{ eventType: 'POLICY_EVALUATED' }, { eventType: 'ANOMALY_DETECTED', payload: { anomalyId: 'a-1', metrics: { n: 1 } } }, { eventType: 'POLICY_DEPLOYED' }]);

    const first = await follower().round(null);
    expect(first).toEqual({ next: null, tenants: 2, events: FOLLOW_RECORDS_PER_TENANT + 1 });
    const quiet = dispatched.filter(([tenant]) => tenant === 'quiet').map(([, event]) => event);
    expect(quiet).toEqual([{ id: expect.stringMatching(/^audit-/), type: 'ANOMALY_DETECTED', occurredAt: expect.any(String), data: { anomalyId: 'a-1', policyModule: 'com.example.lending', policyFunction: 'eligible', actorId: 'user-1' } }]);
    const busy = () => dispatched.filter(([tenant]) => tenant === 'busy').map(([, event]) => event.data.version);
    expect(busy()).toEqual(Array.from({ length: FOLLOW_RECORDS_PER_TENANT }, (_, i) => i + 1));
    expect(await store.webhooks.cursor('busy')).toBe(3 + FOLLOW_RECORDS_PER_TENANT);
    // The quiet tenant's cursor passed its whole chain, the records no one subscribed to included.
    expect(await store.webhooks.cursor('quiet')).toBe(3);

    await follower().round(null);
    await follower().round(null);
    expect(busy()).toEqual([...Array.from({ length: 150 }, (_, i) => i + 1), ...Array.from({ length: 100 }, (_, i) => i + 1)]);
    expect(await store.webhooks.cursor('busy')).toBe(303);
    expect((await follower().round(null)).events).toBe(0);
    expect(errors).toEqual([]);
  });

  it('leaves the cursor where a dispatch failed, so the next round dispatches that event again', async () => {
    await store.webhooks.createSubscription('acme', subscription('s', ['POLICY_DEPLOYED']), 10);
    await store.webhooks.advanceCursor('acme', 0);
    await append('acme', many(3, 'POLICY_DEPLOYED'));
    let failOn = 2;
    const flaky = async (tenantId: string, event: WebhookEvent) => {
      if (event.data.version === failOn) throw new Error('queue away');
      dispatched.push([tenantId, event]);
    };
    await follower(flaky).round(null);
    expect(errors).toHaveLength(1);
    expect(await store.webhooks.cursor('acme')).toBe(0);
    failOn = -1;
    await follower(flaky).round(null);
    expect(dispatched.map(([, event]) => event.data.version)).toEqual([1, 1, 2, 3]);
    expect(await store.webhooks.cursor('acme')).toBe(3);
  });

  it('pages through the followed tenants, a round at a time', async () => {
    for (const tenant of ['t-a', 't-b']) await store.webhooks.advanceCursor(tenant, 0);
    expect(await follower().round(null)).toMatchObject({ next: null, tenants: 2 });
    expect(await follower().round('t-a')).toMatchObject({ next: null, tenants: 1 });
  });
});
