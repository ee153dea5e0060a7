import { describe, expect, it } from 'vitest';
import { StoreArgumentError, type Store } from '../../src/store/index.js';
import type { WebhookDelivery, WebhookSubscription } from '../../src/webhooks/index.js';
import { buildRecords } from '../support/audit-records.js';
import { linkChain } from '../support/link-chain.js';
import type { StoreTarget } from '../support/store-targets.js';

function subscription(id: string, createdAt: string, spec: Partial<WebhookSubscription> = {}): WebhookSubscription {
  return { id, url: `https://hooks.example.com/${id}`, events: ['POLICY_DEPLOYED', 'WORKFLOW_FAILED'], secret: `whsec_${id}`, actorId: 'alice', createdAt, ...spec };
}

function delivery(id: string, subscriptionId: string, spec: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id,
    subscriptionId,
    eventId: `event-${id}`,
    eventType: 'POLICY_DEPLOYED',
    body: `{"id":"event-${id}"}`,
    status: 'PENDING',
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: null,
    createdAt: '2026-05-01T10:00:00.000Z',
    ...spec,
  };
}

/** Webhook subscriptions (a quota no race passes), deliveries (stored once, outcomes never going back, pruned) and chain cursors. */
export function runWebhookStoreContract(getStore: () => Store, _getTarget: () => StoreTarget, newTenant: (label: string) => string): void {
  describe('webhooks', () => {
    it('keeps a tenant\'s subscriptions apart from another\'s, pages them oldest first, and deletes one with its deliveries', async () => {
      const store = getStore();
      const tenant = newTenant('wh');
      const other = newTenant('wh-other');
      for (let i = 0; i < 3; i += 1) expect(await store.webhooks.createSubscription(tenant, subscription(`s${i}`, `2026-05-01T10:00:0${i}.000Z`), 10)).toBe('created');
      expect(await store.webhooks.getSubscription(tenant, 's1')).toEqual(subscription('s1', '2026-05-01T10:00:01.000Z'));
      expect(await store.webhooks.getSubscription(other, 's1')).toBeNull();
      expect(await store.webhooks.listSubscriptions(other, 0, 10)).toEqual({ items: [], total: 0 });
      const page = await store.webhooks.listSubscriptions(tenant, 1, 2);
      expect(page).toEqual({ items: [subscription('s2', '2026-05-01T10:00:02.000Z')], total: 3 });
      expect((await store.webhooks.subscriptionsOf(tenant)).map((s) => s.id)).toEqual(['s0', 's1', 's2']);

      await store.webhooks.addDelivery(tenant, delivery('d1', 's1'));
      expect(await store.webhooks.deleteSubscription(other, 's1')).toBe(false);
      expect(await store.webhooks.getDelivery(tenant, 'd1')).not.toBeNull();
      expect(await store.webhooks.deleteSubscription(tenant, 's1')).toBe(true);
      expect(await store.webhooks.deleteSubscription(tenant, 's1')).toBe(false);
      expect(await store.webhooks.getDelivery(tenant, 'd1')).toBeNull();
      expect((await store.webhooks.subscriptionsOf(tenant)).map((s) => s.id)).toEqual(['s0', 's2']);
      await expect(store.webhooks.listSubscriptions(tenant, -1, 2)).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it('never lets concurrent creates pass the tenant quota, and frees a place on delete', async () => {
      const store = getStore();
      const tenant = newTenant('wh-quota');
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.webhooks.createSubscription(tenant, subscription(`q${i}`, `2026-05-01T10:00:0${i}.000Z`), 3)),
      );
      expect(results.filter((r) => r === 'created')).toHaveLength(3);
      expect((await store.webhooks.listSubscriptions(tenant, 0, 10)).total).toBe(3);
      const [first] = await store.webhooks.subscriptionsOf(tenant);
      expect(await store.webhooks.deleteSubscription(tenant, first!.id)).toBe(true);
      expect(await store.webhooks.createSubscription(tenant, subscription('again', '2026-05-01T11:00:00.000Z'), 3)).toBe('created');
      expect(await store.webhooks.createSubscription(tenant, subscription('over', '2026-05-01T11:00:01.000Z'), 3)).toBe('limit');
    });

    it('stores a delivery once, keeps outcomes of later attempts only, and marks a redelivery pending', async () => {
      const store = getStore();
      const tenant = newTenant('wh-dlv');
      const first = await store.webhooks.addDelivery(tenant, delivery('d1', 's1'));
      expect(first).toEqual(delivery('d1', 's1'));
      // A second store of the same delivery (the event found again) returns the stored one unchanged.
      expect(await store.webhooks.addDelivery(tenant, delivery('d1', 's1', { body: 'other' }))).toEqual(delivery('d1', 's1'));
      expect(await store.webhooks.getDelivery(newTenant('wh-dlv-other'), 'd1')).toBeNull();

      const failed = { status: 'FAILED' as const, attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500', nextAttemptAt: '2026-05-01T10:01:00.000Z' };
      await store.webhooks.recordOutcome(tenant, 'd1', failed);
      await store.webhooks.recordOutcome(tenant, 'd1', { status: 'SUCCEEDED', attempts: 2, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
      // A late writer of the first attempt changes nothing.
      await store.webhooks.recordOutcome(tenant, 'd1', failed);
      expect(await store.webhooks.getDelivery(tenant, 'd1')).toMatchObject({ status: 'SUCCEEDED', attempts: 2, lastStatusCode: 200, lastError: null });
      expect(await store.webhooks.addDelivery(tenant, delivery('d1', 's1'))).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });

      // A redelivery asked for once 1 attempt was made comes too late once a second one was: nothing changes.
      await store.webhooks.markPending(tenant, 'd1', '2026-05-01T11:00:00Z', 1);
      expect(await store.webhooks.getDelivery(tenant, 'd1')).toMatchObject({ status: 'SUCCEEDED', attempts: 2, nextAttemptAt: null });
      await store.webhooks.markPending(tenant, 'd1', '2026-05-01T12:00:00Z', 2);
      expect(await store.webhooks.getDelivery(tenant, 'd1')).toMatchObject({ status: 'PENDING', attempts: 2, nextAttemptAt: '2026-05-01T12:00:00.000Z' });
      await store.webhooks.recordOutcome(tenant, 'd1', { status: 'DEAD', attempts: 3, lastStatusCode: null, lastError: 'ECONNREFUSED', nextAttemptAt: null });
      expect(await store.webhooks.getDelivery(tenant, 'd1')).toMatchObject({ status: 'DEAD', attempts: 3, lastStatusCode: null, lastError: 'ECONNREFUSED' });
    });

    it('lists a subscription\'s deliveries newest first and keeps only the newest on pruning', async () => {
      const store = getStore();
      const tenant = newTenant('wh-prune');
      for (let i = 0; i < 7; i += 1) {
        await store.webhooks.addDelivery(tenant, delivery(`p${i}`, 'sub', { createdAt: `2026-05-01T10:00:0${i}.000Z` }));
        await store.webhooks.addDelivery(tenant, delivery(`x${i}`, 'other-sub', { createdAt: `2026-05-01T10:00:0${i}.000Z` }));
      }
      const page = await store.webhooks.listDeliveries(tenant, 'sub', 0, 3);
      expect(page.total).toBe(7);
      expect(page.items.map((d) => d.id)).toEqual(['p6', 'p5', 'p4']);
      await store.webhooks.pruneDeliveries(tenant, 'sub', 4);
      expect((await store.webhooks.listDeliveries(tenant, 'sub', 0, 10)).items.map((d) => d.id)).toEqual(['p6', 'p5', 'p4', 'p3']);
      expect((await store.webhooks.listDeliveries(tenant, 'other-sub', 0, 10)).total).toBe(7);
      await store.webhooks.pruneDeliveries(tenant, 'sub', 4);
      expect((await store.webhooks.listDeliveries(tenant, 'sub', 1, 3)).items.map((d) => d.id)).toEqual(['p3']);
      // Keeping none removes them all (the overdue sweep so drops a deleted subscription's leftovers).
      await store.webhooks.pruneDeliveries(tenant, 'sub', 0);
      expect((await store.webhooks.listDeliveries(tenant, 'sub', 0, 10)).total).toBe(0);
      expect(await store.webhooks.getDelivery(tenant, 'p6')).toBeNull();
      expect((await store.webhooks.listDeliveries(tenant, 'other-sub', 0, 10)).total).toBe(7);
    });

    it('finds a tenant\'s PENDING and FAILED deliveries due before a time, the longest overdue first', async () => {
      const store = getStore();
      const tenant = newTenant('wh-due');
      const at = (minute: number) => `2026-05-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
      await store.webhooks.addDelivery(tenant, delivery('late', 's', { nextAttemptAt: at(5) }));
      await store.webhooks.addDelivery(tenant, delivery('later', 's', { status: 'FAILED', attempts: 1, nextAttemptAt: at(1) }));
      await store.webhooks.addDelivery(tenant, delivery('not-yet', 's', { nextAttemptAt: at(30) }));
      await store.webhooks.addDelivery(tenant, delivery('done', 's', { status: 'SUCCEEDED', attempts: 1, nextAttemptAt: null }));
      await store.webhooks.addDelivery(tenant, delivery('dead', 's', { status: 'DEAD', attempts: 8, nextAttemptAt: null }));
      await store.webhooks.addDelivery(newTenant('wh-due-other'), delivery('theirs', 's', { nextAttemptAt: at(0) }));
      expect((await store.webhooks.overdueDeliveries(tenant, at(20), 10)).map((d) => d.id)).toEqual(['later', 'late']);
      expect((await store.webhooks.overdueDeliveries(tenant, at(20), 1)).map((d) => d.id)).toEqual(['later']);
      // Succeeding takes a delivery out; a redelivery asked for puts it back, due then.
      await store.webhooks.recordOutcome(tenant, 'later', { status: 'SUCCEEDED', attempts: 2, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
      await store.webhooks.markPending(tenant, 'dead', at(2), 8);
      expect((await store.webhooks.overdueDeliveries(tenant, at(20), 10)).map((d) => d.id)).toEqual(['dead', 'late']);
    });

    it('moves a tenant\'s cursor only forward and pages the tenants that have one', async () => {
      const store = getStore();
      const tenant = newTenant('wh-cursor');
      expect(await store.webhooks.cursor(tenant)).toBeNull();
      await store.webhooks.advanceCursor(tenant, 5);
      await store.webhooks.advanceCursor(tenant, 3);
      expect(await store.webhooks.cursor(tenant)).toBe(5);
      // Racing advances end at one of them (FerretDB may let the lower win: events are then read again, which dispatch tolerates).
      await Promise.all([store.webhooks.advanceCursor(tenant, 9), store.webhooks.advanceCursor(tenant, 7)]);
      expect([7, 9]).toContain(await store.webhooks.cursor(tenant));
      await store.webhooks.advanceCursor(tenant, 10);
      await store.webhooks.advanceCursor(tenant, 8);
      expect(await store.webhooks.cursor(tenant)).toBe(10);
      const later = `${tenant}-z`;
      await store.webhooks.advanceCursor(later, 0);
      const followed: string[] = [];
      for (let after: string | null = null; ; ) {
        const page = await store.webhooks.followedTenants(after, 2);
        followed.push(...page);
        if (page.length < 2) break;
        after = page.at(-1)!;
      }
      expect(followed).toEqual([...followed].sort());
      expect(followed.indexOf(later)).toBe(followed.indexOf(tenant) + 1);
    });

    it('lists a tenant\'s audit records of one type after a seq, oldest first', async () => {
      const store = getStore();
      const tenant = newTenant('wh-chain');
      const types = ['POLICY_EVALUATED', 'POLICY_DEPLOYED', 'POLICY_EVALUATED', 'ANOMALY_DETECTED', 'POLICY_DEPLOYED', 'POLICY_DEPLOYED'];
      const records = buildRecords(null, types.map((eventType) => ({ eventType })));
      await linkChain(store, tenant, records);
      const seqs = async (type: string, after: number, limit: number) => (await store.audit.listTypeAfter(tenant, type, after, limit)).map((r) => r.seq);
      expect(await seqs('POLICY_DEPLOYED', 0, 10)).toEqual([2, 5, 6]);
      expect(await seqs('POLICY_DEPLOYED', 2, 1)).toEqual([5]);
      expect(await seqs('POLICY_DEPLOYED', 6, 10)).toEqual([]);
      expect(await store.audit.listTypeAfter(tenant, 'ANOMALY_DETECTED', 0, 10)).toEqual([records[3]]);
      expect(await store.audit.listTypeAfter(newTenant('wh-chain-other'), 'POLICY_DEPLOYED', 0, 10)).toEqual([]);
      await expect(store.audit.listTypeAfter(tenant, 'POLICY_DEPLOYED', -1, 10)).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(store.audit.listTypeAfter(tenant, 'POLICY_DEPLOYED', 0, 0)).rejects.toBeInstanceOf(StoreArgumentError);
    });
  });
}
