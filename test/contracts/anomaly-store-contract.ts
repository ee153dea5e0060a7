import { describe, expect, it } from 'vitest';
import type {
  AnomalyKey,
  AnomalyObservation,
  AnomalyRepository,
  AnomalyTransition,
  StoredAnomaly,
} from '../../src/anomalies/index.js';
import type { OwedAudit } from '../../src/audit/index.js';
import { StoreArgumentError, type Store } from '../../src/store/index.js';
import type { StoreTarget } from '../support/store-targets.js';

const KEY: AnomalyKey = { type: 'HIGH_FAILURE_RATE', policyModule: 'lending.loan', policyFunction: 'eligible', version: 3 };

function observation(spec: Partial<AnomalyObservation> = {}): AnomalyObservation {
  return {
    observedAt: '2026-05-01T10:00:00.000Z',
    severity: 'HIGH',
    summary: 'lending.loan@3: eligible failed 31% of 120 evaluations',
    metrics: { failureRate: 0.31, sampleSize: 120, windowStart: '2026-05-01T09:00:00.000Z', note: 'a.b $c', nothing: null },
    recommendedActions: ['Roll back lending.loan to version 2'],
    ...spec,
  };
}

function anomaly(id: string, spec: Partial<StoredAnomaly> = {}): StoredAnomaly {
  return { ...KEY, id, occurrence: 1, detectedAt: '2026-05-01T10:00:00.000Z', observation: observation(), verification: null, ...spec };
}

function transition(anomalyId: string, seq: number, from: AnomalyTransition['from'], to: AnomalyTransition['to'], spec: Partial<AnomalyTransition> = {}): AnomalyTransition {
  return { anomalyId, seq, from, to, note: null, actorId: 'alice', occurredAt: `2026-05-01T11:0${seq}:00.000Z`, ...spec };
}

/**
 * Anomalies, their status log and the tenants' detection settings: what every adapter must do,
 * including the races (two detectors opening one occurrence, concurrent status changes) that a
 * unique insert must decide without transactions.
 */
export function runAnomalyStoreContract(getStore: () => Store, getTarget: () => StoreTarget, newTenant: (label: string) => string): void {
  describe('anomalies', () => {
    it('stores an anomaly once per key and occurrence, and reads it back with its status', async () => {
      const store = getStore();
      const tenant = newTenant('anomaly');
      expect(await store.anomalies.insert(tenant, anomaly('a-1'))).toBe(true);
      expect(await store.anomalies.insert(tenant, anomaly('a-2'))).toBe(false);
      expect(await store.anomalies.insert(tenant, anomaly('a-1', { occurrence: 2 }))).toBe(false);
      const stored = await store.anomalies.get(tenant, 'a-1');
      expect(stored).toEqual({ ...anomaly('a-1'), status: 'OPEN', statusSeq: 0, statusChangedAt: null });
      expect(await store.anomalies.get(tenant, 'a-2')).toBeNull();
      expect(await store.anomalies.get(newTenant('anomaly-other'), 'a-1')).toBeNull();
      expect(await store.anomalies.get(tenant, 'not an id!')).toBeNull();
      expect(await store.anomalies.latest(tenant, KEY)).toEqual(stored);
      expect(await store.anomalies.latest(tenant, { ...KEY, version: 4 })).toBeNull();
      expect(await store.anomalies.insert(tenant, anomaly('a-2', { occurrence: 2, detectedAt: '2026-05-02T10:00:00.000Z' }))).toBe(true);
      expect((await store.anomalies.latest(tenant, KEY))?.id).toBe('a-2');
    });

    it('keeps a linked status log: the newest transition is the status; a taken seq loses, a broken link throws', async () => {
      const store = getStore();
      const tenant = newTenant('anomaly-log');
      await store.anomalies.insert(tenant, anomaly('b-1'));
      expect(await store.anomalies.appendTransition(tenant, transition('b-1', 1, 'OPEN', 'VERIFYING'))).toBe(true);
      expect(await store.anomalies.appendTransition(tenant, transition('b-1', 1, 'OPEN', 'DISMISSED'))).toBe(false);
      expect(await store.anomalies.appendTransition(tenant, transition('b-1', 2, 'VERIFYING', 'RESOLVED', { note: 'cleared', requestRef: 'req-1' }))).toBe(true);
      const state = await store.anomalies.get(tenant, 'b-1');
      expect(state).toMatchObject({ status: 'RESOLVED', statusSeq: 2, statusChangedAt: '2026-05-01T11:02:00.000Z' });
      expect(await store.anomalies.transitions(tenant, 'b-1')).toEqual([
        transition('b-1', 1, 'OPEN', 'VERIFYING'),
        transition('b-1', 2, 'VERIFYING', 'RESOLVED', { note: 'cleared', requestRef: 'req-1' }),
      ]);
      for (const broken of [
        transition('b-1', 3, 'OPEN', 'DISMISSED'), // leaves a status it is not in
        transition('b-1', 5, 'RESOLVED', 'OPEN'), // seq 4 missing
        transition('nobody', 1, 'OPEN', 'RESOLVED'), // unknown anomaly
        transition('b-1', 0, 'RESOLVED', 'OPEN'),
        transition('b-1', 3, 'RESOLVED', 'CLOSED' as 'OPEN'),
        transition('b-1', 3, 'RESOLVED', 'OPEN', { requestRef: 42 as unknown as string }),
      ]) {
        await expect(store.anomalies.appendTransition(tenant, broken), JSON.stringify(broken)).rejects.toBeInstanceOf(StoreArgumentError);
      }
      expect(await store.anomalies.transitions(tenant, 'b-1')).toHaveLength(2);
      expect(await store.anomalies.transitions(newTenant('anomaly-log-other'), 'b-1')).toEqual([]);
    });

    it('lists newest first with a type filter, a detection floor, offset, limit and the total', async () => {
      const store = getStore();
      const tenant = newTenant('anomaly-list');
      const day = (d: number) => `2026-05-0${d}T10:00:00.000Z`;
      await store.anomalies.insert(tenant, anomaly('c-1', { detectedAt: day(1) }));
      await store.anomalies.insert(tenant, anomaly('c-2', { ...KEY, type: 'ZOMBIE_VERSION', detectedAt: day(3) }));
      await store.anomalies.insert(tenant, anomaly('c-3', { occurrence: 2, detectedAt: day(3) }));
      await store.anomalies.insert(tenant, anomaly('c-4', { ...KEY, type: 'PERFORMANCE_DEGRADATION', detectedAt: day(5) }));
      await store.anomalies.appendTransition(tenant, transition('c-3', 1, 'OPEN', 'DISMISSED'));
      const all = await store.anomalies.list(tenant, { detectedFrom: day(1), offset: 0, limit: 10 });
      expect(all.total).toBe(4);
      expect(all.items.map((a) => [a.id, a.status])).toEqual([['c-4', 'OPEN'], ['c-2', 'OPEN'], ['c-3', 'DISMISSED'], ['c-1', 'OPEN']]);
      const page = await store.anomalies.list(tenant, { detectedFrom: day(1), offset: 1, limit: 2 });
      expect({ ids: page.items.map((a) => a.id), total: page.total }).toEqual({ ids: ['c-2', 'c-3'], total: 4 });
      const recent = await store.anomalies.list(tenant, { detectedFrom: day(3), offset: 0, limit: 10, type: 'HIGH_FAILURE_RATE' });
      expect({ ids: recent.items.map((a) => a.id), total: recent.total }).toEqual({ ids: ['c-3'], total: 1 });
      expect(await store.anomalies.list(newTenant('anomaly-list-other'), { detectedFrom: day(1), offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
      await expect(store.anomalies.list(tenant, { detectedFrom: day(1), offset: -1, limit: 10 })).rejects.toBeInstanceOf(StoreArgumentError);
    });

    it('replaces the observation and the verification, and refuses malformed anomalies', async () => {
      const store = getStore();
      const tenant = newTenant('anomaly-update');
      await store.anomalies.insert(tenant, anomaly('d-1'));
      const newer = observation({ observedAt: '2026-05-01T10:05:00.000Z', severity: 'CRITICAL', metrics: { failureRate: 0.5 } });
      const verification = { verifiedAt: '2026-05-01T10:06:00.000Z', outcome: 'OPEN' as const, reason: 'CONDITION_HOLDS', metrics: { failureRate: 0.5 } };
      expect(await store.anomalies.update(tenant, 'd-1', { observation: newer })).toBe(true);
      expect(await store.anomalies.update(tenant, 'd-1', { verification })).toBe(true);
      expect(await store.anomalies.update(tenant, 'd-9', { observation: newer })).toBe(false);
      expect(await store.anomalies.get(tenant, 'd-1')).toMatchObject({ observation: newer, verification, detectedAt: '2026-05-01T10:00:00.000Z' });
      for (const bad of [
        anomaly('e-1', { type: 'SLOW' as 'ZOMBIE_VERSION' }),
        anomaly('e-2', { occurrence: 0 }),
        anomaly('e 3'),
        anomaly('e-4', { observation: observation({ severity: 'HUGE' as 'LOW' }) }),
        anomaly('e-5', { detectedAt: 'yesterday' }),
        anomaly('e-6', { policyFunction: '' }),
      ]) {
        await expect(store.anomalies.insert(tenant, bad)).rejects.toBeInstanceOf(StoreArgumentError);
      }
      expect((await store.anomalies.list(tenant, { detectedFrom: '2026-01-01T00:00:00Z', offset: 0, limit: 10 })).total).toBe(1);
    });

    it('lists the OPEN anomalies observed before a bound, oldest observation first, within the limit, and only the tenant’s', async () => {
      const store = getStore();
      const tenant = newTenant('anomaly-open');
      const at = (minute: number) => new Date(Date.parse('2026-05-01T10:00:00.000Z') + minute * 60_000).toISOString();
      const open = (id: string, version: number, minute: number) => anomaly(id, { version, observation: observation({ observedAt: at(minute) }) });
      for (const a of [open('o-3', 3, 30), open('o-1', 1, 10), open('o-2', 2, 10), open('o-4', 4, 50), open('o-5', 5, 5), open('o-6', 6, 5), open('o-7', 7, 5)]) {
        expect(await store.anomalies.insert(tenant, a)).toBe(true);
      }
      // Written with a zone: compared as the instant it names (10:20Z).
      expect(await store.anomalies.insert(tenant, anomaly('o-8', { version: 8, observation: observation({ observedAt: '2026-05-01T12:20:00+02:00' }) }))).toBe(true);
      await store.anomalies.appendTransition(tenant, transition('o-5', 1, 'OPEN', 'VERIFYING'));
      await store.anomalies.appendTransition(tenant, transition('o-6', 1, 'OPEN', 'RESOLVED'));
      await store.anomalies.appendTransition(tenant, transition('o-7', 1, 'OPEN', 'DISMISSED'));
      await store.anomalies.appendTransition(tenant, transition('o-7', 2, 'DISMISSED', 'OPEN'));
      await store.anomalies.insert(newTenant('anomaly-open-other'), open('o-0', 1, 0));
      const ids = async (observedBefore: string, limit: number) => (await store.anomalies.openObservedBefore(tenant, { observedBefore, limit })).map((a) => a.id);
      expect(await ids(at(40), 10)).toEqual(['o-7', 'o-1', 'o-2', 'o-8', 'o-3']);
      expect(await ids(at(40), 2)).toEqual(['o-7', 'o-1']);
      expect(await ids(at(10), 10)).toEqual(['o-7']);
      expect(await ids(at(0), 10)).toEqual([]);
      const [first] = await store.anomalies.openObservedBefore(tenant, { observedBefore: at(40), limit: 1 });
      expect(first).toEqual(await store.anomalies.get(tenant, 'o-7'));
      expect(first).toMatchObject({ status: 'OPEN', statusSeq: 2 });
      // A newer observation moves it past the bound; leaving OPEN takes it out, coming back puts it in again.
      await store.anomalies.update(tenant, 'o-7', { observation: observation({ observedAt: at(45) }) });
      await store.anomalies.appendTransition(tenant, transition('o-1', 1, 'OPEN', 'RESOLVED'));
      expect(await ids(at(40), 10)).toEqual(['o-2', 'o-8', 'o-3']);
      await store.anomalies.appendTransition(tenant, transition('o-1', 2, 'RESOLVED', 'OPEN'));
      await store.anomalies.appendTransition(tenant, transition('o-5', 2, 'VERIFYING', 'OPEN'));
      expect(await ids(at(40), 10)).toEqual(['o-5', 'o-1', 'o-2', 'o-8', 'o-3']);
      expect(await store.anomalies.openObservedBefore(newTenant('anomaly-open-none'), { observedBefore: at(40), limit: 10 })).toEqual([]);
      for (const bad of [{ observedBefore: 'soon', limit: 1 }, { observedBefore: at(0), limit: 0 }, { observedBefore: at(0), limit: 1.5 }]) {
        await expect(store.anomalies.openObservedBefore(tenant, bad), JSON.stringify(bad)).rejects.toBeInstanceOf(StoreArgumentError);
      }
    });

    it('lists an anomaly as OPEN exactly when the winner of concurrent changes made it OPEN, across connections', async () => {
      const tenant = newTenant('anomaly-open-race');
      const stores = [getStore(), ...(await Promise.all(Array.from({ length: 3 }, () => getTarget().connect())))];
      const everything = { observedBefore: '2026-06-01T00:00:00.000Z', limit: 100 };
      for (let round = 0; round < 4; round += 1) {
        const id = `q-${round}`;
        await getStore().anomalies.insert(tenant, anomaly(id, { version: 10 + round }));
        await getStore().anomalies.appendTransition(tenant, transition(id, 1, 'OPEN', 'RESOLVED'));
        const targets = ['OPEN', 'DISMISSED'] as const;
        const changed = await Promise.all(
          stores.flatMap((s, i) => [0, 1].map((j) => s.anomalies.appendTransition(tenant, transition(id, 2, 'RESOLVED', targets[(i + j + round) % 2]!, { actorId: `racer-${i}-${j}` })))),
        );
        expect(changed.filter(Boolean)).toHaveLength(1);
        const status = (await getStore().anomalies.get(tenant, id))!.status;
        const listed = (await getStore().anomalies.openObservedBefore(tenant, everything)).map((a) => a.id);
        expect(listed.includes(id), `${id} is ${status}`).toBe(status === 'OPEN');
      }
    }, 60_000);

    it('lets exactly one of concurrent openers and of concurrent status changes win, across connections', async () => {
      const tenant = newTenant('anomaly-race');
      const stores = [getStore(), ...(await Promise.all(Array.from({ length: 3 }, () => getTarget().connect())))];
      const opened = await Promise.all(stores.flatMap((s, i) => [0, 1, 2].map((j) => s.anomalies.insert(tenant, anomaly(`f-${i}-${j}`)))));
      expect(opened.filter(Boolean)).toHaveLength(1);
      const winner = (await getStore().anomalies.latest(tenant, KEY))!;
      const targets = ['RESOLVED', 'DISMISSED'] as const;
      const changed = await Promise.all(
        stores.flatMap((s, i) => [0, 1, 2].map((j) => s.anomalies.appendTransition(tenant, transition(winner.id, 1, 'OPEN', targets[(i + j) % 2]!, { actorId: `racer-${i}-${j}` })))),
      );
      expect(changed.filter(Boolean)).toHaveLength(1);
      const log = await getStore().anomalies.transitions(tenant, winner.id);
      expect(log).toHaveLength(1);
      expect((await getStore().anomalies.get(tenant, winner.id))?.status).toBe(log[0]!.to);
    }, 60_000);
  });

  describe('owed audit records of status changes (the status log as the outbox of its audit records)', () => {
    const T0 = Date.UTC(2026, 4, 1);
    const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
    const owed = (recordId: string, owner: string, untilSeconds: number): OwedAudit => ({ recordId, claim: { owner, until: at(untilSeconds) } });
    const verification = { verifiedAt: '2026-05-01T11:02:00.000Z', outcome: 'RESOLVED' as const, reason: 'CONDITION_CLEARED', metrics: { failureRate: 0.01 } };
    /** The owed changes of one tenant (the backend is shared by every case, and the list spans tenants). */
    async function owedOf(repo: AnomalyRepository, tenant: string, nowSeconds: number) {
      return (await repo.owedAudits(at(nowSeconds), 10_000)).filter((o) => o.tenantId === tenant);
    }

    it('stores the owed record with the change and lists it, across tenants, once its claim ended', async () => {
      const repo = getStore().anomalies;
      const tenant = newTenant('owed-change');
      const other = newTenant('owed-change-other');
      await repo.insert(tenant, anomaly('g-1'));
      await repo.insert(tenant, anomaly('g-2', { occurrence: 2 }));
      await repo.insert(other, anomaly('g-1'));
      expect(await repo.appendTransition(tenant, transition('g-1', 1, 'OPEN', 'VERIFYING'), owed('rec-g1-1', 'p1', 1000))).toBe(true);
      const verified = transition('g-1', 2, 'VERIFYING', 'RESOLVED', { note: 'cleared', actorId: 'system:anomaly-verify', verification });
      expect(await repo.appendTransition(tenant, verified, owed('rec-g1-2', 'p2', 2000))).toBe(true);
      expect(await repo.appendTransition(tenant, transition('g-2', 1, 'OPEN', 'DISMISSED'))).toBe(true);
      expect(await repo.appendTransition(other, transition('g-1', 1, 'OPEN', 'RESOLVED'), owed('rec-other', 'p3', 1500))).toBe(true);
      // The changes read back exactly as stored: the outbox fields are not part of them; the verification is.
      expect(await repo.transitions(tenant, 'g-1')).toEqual([transition('g-1', 1, 'OPEN', 'VERIFYING'), verified]);
      expect(await repo.get(tenant, 'g-1')).toMatchObject({ status: 'RESOLVED', statusSeq: 2 });

      expect(await owedOf(repo, tenant, 1000)).toEqual([]);
      expect(await owedOf(repo, tenant, 1001)).toEqual([
        { tenantId: tenant, entry: { kind: 'transition' as const, anomalyId: 'g-1', seq: 1 }, recordId: 'rec-g1-1', claim: { owner: 'p1', until: at(1000) } },
      ]);
      const all = (await repo.owedAudits(at(3000), 10_000)).filter((o) => o.tenantId === tenant || o.tenantId === other);
      expect(all.map((o) => o.recordId)).toEqual(['rec-g1-1', 'rec-other', 'rec-g1-2']);
      expect(all[2]).toEqual({ tenantId: tenant, entry: { kind: 'transition' as const, anomalyId: 'g-1', seq: 2 }, recordId: 'rec-g1-2', claim: { owner: 'p2', until: at(2000) } });
      expect((await repo.owedAudits(at(3000), 1)).length).toBe(1);
    });

    it('marks a change audited once and for good; a change stored without a record owes nothing', async () => {
      const repo = getStore().anomalies;
      const tenant = newTenant('owed-change-mark');
      await repo.insert(tenant, anomaly('h-1'));
      await repo.appendTransition(tenant, transition('h-1', 1, 'OPEN', 'DISMISSED'), owed('rec-h1', 'p1', 10));
      await repo.appendTransition(tenant, transition('h-1', 2, 'DISMISSED', 'OPEN'), owed('rec-h2', 'p1', 10));
      await repo.appendTransition(tenant, transition('h-1', 3, 'OPEN', 'RESOLVED'));
      await repo.markAudited(tenant, { kind: 'transition' as const, anomalyId: 'h-1', seq: 1 }, at(20));
      await repo.markAudited(tenant, { kind: 'transition' as const, anomalyId: 'h-1', seq: 1 }, at(30));
      await repo.markAudited(tenant, { kind: 'transition' as const, anomalyId: 'h-1', seq: 3 }, at(30));
      await repo.markAudited(tenant, { kind: 'transition' as const, anomalyId: 'h-1', seq: 9 }, at(30));
      await repo.markAudited(tenant, { kind: 'transition' as const, anomalyId: 'nobody', seq: 1 }, at(30));
      expect((await owedOf(repo, tenant, 5000)).map((o) => o.recordId)).toEqual(['rec-h2']);
      expect(await repo.claimAudit(tenant, { kind: 'transition' as const, anomalyId: 'h-1', seq: 1 }, { owner: 'late', until: at(6000) }, at(5000))).toBe(false);
      expect(await repo.claimAudit(tenant, { kind: 'transition' as const, anomalyId: 'h-1', seq: 3 }, { owner: 'late', until: at(6000) }, at(5000))).toBe(false);
      expect(await repo.transitions(tenant, 'h-1')).toHaveLength(3);
    });

    it('gives an ended claim to one new owner, refuses a live one, and can take it over again', async () => {
      const repo = getStore().anomalies;
      const tenant = newTenant('owed-change-claim');
      await repo.insert(tenant, anomaly('i-1'));
      await repo.appendTransition(tenant, transition('i-1', 1, 'OPEN', 'RESOLVED'), owed('rec-i1', 'writer', 100));
      const entry = { kind: 'transition' as const, anomalyId: 'i-1', seq: 1 };
      expect(await repo.claimAudit(tenant, entry, { owner: 'early', until: at(200) }, at(99))).toBe(false);
      expect(await repo.claimAudit(tenant, entry, { owner: 'follower-1', until: at(200) }, at(101))).toBe(true);
      expect(await repo.claimAudit(tenant, entry, { owner: 'follower-2', until: at(200) }, at(101))).toBe(false);
      expect(await owedOf(repo, tenant, 150)).toEqual([]);
      expect(await owedOf(repo, tenant, 201)).toEqual([{ tenantId: tenant, entry, recordId: 'rec-i1', claim: { owner: 'follower-1', until: at(200) } }]);
      // Another connection sees the claim too.
      const other = (await getTarget().connect()).anomalies;
      expect(await other.claimAudit(tenant, entry, { owner: 'follower-2', until: at(300) }, at(150))).toBe(false);
      expect(await other.claimAudit(tenant, entry, { owner: 'follower-2', until: at(300) }, at(250))).toBe(true);
      expect((await owedOf(repo, tenant, 400))[0]?.claim).toEqual({ owner: 'follower-2', until: at(300) });
      expect(await repo.claimAudit(tenant, { kind: 'transition' as const, anomalyId: 'i-1', seq: 2 }, { owner: 'x', until: at(900) }, at(800))).toBe(false);
      expect(await repo.claimAudit(newTenant('owed-change-none'), entry, { owner: 'x', until: at(900) }, at(800))).toBe(false);
    });

    it('lets exactly one of many concurrent claimers on separate connections take an ended claim', async () => {
      const tenant = newTenant('owed-change-race');
      await getStore().anomalies.insert(tenant, anomaly('j-1'));
      await getStore().anomalies.appendTransition(tenant, transition('j-1', 1, 'OPEN', 'DISMISSED'), owed('rec-race', 'dead', 10));
      const stores = [getStore(), ...(await Promise.all([1, 2, 3].map(() => getTarget().connect())))];
      for (const round of [1, 2, 3]) {
        const now = at(10 + round * 100);
        const wins = await Promise.all(
          stores.flatMap((s, i) =>
            Array.from({ length: 5 }, (_, j) =>
              s.anomalies.claimAudit(tenant, { kind: 'transition' as const, anomalyId: 'j-1', seq: 1 }, { owner: `c-${round}-${i}-${j}`, until: at(10 + round * 100 + 50) }, now),
            ),
          ),
        );
        expect(wins.filter(Boolean)).toHaveLength(1);
      }
    }, 60_000);

    it('refuses malformed owed records, entries, claims and verifications', async () => {
      const repo = getStore().anomalies;
      const tenant = newTenant('owed-change-bad');
      await repo.insert(tenant, anomaly('k-1'));
      await expect(repo.appendTransition(tenant, transition('k-1', 1, 'OPEN', 'RESOLVED'), owed('', 'p', 10))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(
        repo.appendTransition(tenant, transition('k-1', 1, 'OPEN', 'RESOLVED'), { recordId: 'r', claim: { owner: 'p', until: 'later' } }),
      ).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(
        repo.appendTransition(tenant, transition('k-1', 1, 'OPEN', 'RESOLVED', { verification: { ...verification, outcome: 'MAYBE' as 'OPEN' } })),
      ).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await repo.transitions(tenant, 'k-1')).toEqual([]);
      await expect(repo.claimAudit(tenant, { kind: 'transition' as const, anomalyId: 'not an id!', seq: 1 }, { owner: 'p', until: at(1) }, at(0))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.claimAudit(tenant, { kind: 'transition' as const, anomalyId: 'k-1', seq: 0 }, { owner: 'p', until: at(1) }, at(0))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.claimAudit(tenant, { kind: 'transition' as const, anomalyId: 'k-1', seq: 1 }, { owner: '', until: at(1) }, at(0))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.markAudited(tenant, { kind: 'transition' as const, anomalyId: 'k-1', seq: 1 }, 'soon')).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.owedAudits('soon', 10)).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.owedAudits(at(0), 0)).rejects.toBeInstanceOf(StoreArgumentError);
    });
  });

  describe('owed audit records of detections (the anomalies as the outbox of their ANOMALY_DETECTED records)', () => {
    const T0 = Date.UTC(2026, 4, 1);
    const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
    const owed = (recordId: string, owner: string, untilSeconds: number): OwedAudit => ({ recordId, claim: { owner, until: at(untilSeconds) } });
    const detection = (anomalyId: string) => ({ kind: 'detection' as const, anomalyId });
    async function owedOf(repo: AnomalyRepository, tenant: string, nowSeconds: number) {
      return (await repo.owedAudits(at(nowSeconds), 10_000)).filter((o) => o.tenantId === tenant);
    }

    it('stores the owed record with the anomaly, lists it before its changes once its claim ended, and keeps what it was detected with', async () => {
      const repo = getStore().anomalies;
      const tenant = newTenant('owed-detection');
      expect(await repo.insert(tenant, anomaly('d-1'), owed('rec-d1', 'p1', 100))).toBe(true);
      // The loser of an opening race stores nothing, so owes nothing.
      expect(await repo.insert(tenant, anomaly('d-lost'), owed('rec-lost', 'p2', 100))).toBe(false);
      expect(await repo.insert(tenant, anomaly('d-2', { ...KEY, version: 4 }))).toBe(true);
      expect(await repo.appendTransition(tenant, transition('d-1', 1, 'OPEN', 'DISMISSED'), owed('rec-d1-1', 'p1', 100))).toBe(true);
      expect(await owedOf(repo, tenant, 100)).toEqual([]);
      expect(await owedOf(repo, tenant, 101)).toEqual([
        { tenantId: tenant, entry: detection('d-1'), recordId: 'rec-d1', claim: { owner: 'p1', until: at(100) } },
        { tenantId: tenant, entry: { kind: 'transition', anomalyId: 'd-1', seq: 1 }, recordId: 'rec-d1-1', claim: { owner: 'p1', until: at(100) } },
      ]);
      // A later round replaces the observation; the anomaly as detected keeps the first, and reads
      // back without the outbox fields.
      const later = observation({ severity: 'MEDIUM', summary: 'later', metrics: { failureRate: 0.2 } });
      expect(await repo.update(tenant, 'd-1', { observation: later, verification: { verifiedAt: at(50), outcome: 'OPEN', reason: 'CONDITION_PERSISTS', metrics: { failureRate: 0.2 } } })).toBe(true);
      expect(await repo.asDetected(tenant, 'd-1')).toEqual(anomaly('d-1'));
      expect(await repo.get(tenant, 'd-1')).toMatchObject({ observation: later, status: 'DISMISSED' });
      const stateKeys = [...Object.keys(anomaly('d-1')), 'status', 'statusSeq', 'statusChangedAt'].sort();
      expect(Object.keys((await repo.get(tenant, 'd-1'))!).sort()).toEqual(stateKeys);
      expect(Object.keys((await repo.latest(tenant, KEY))!).sort()).toEqual(stateKeys);
      const listed = await repo.list(tenant, { detectedFrom: '2000-01-01T00:00:00.000Z', offset: 0, limit: 10 });
      expect(listed.items.map((item) => Object.keys(item).sort())).toEqual([stateKeys, stateKeys]);
      expect(await repo.asDetected(tenant, 'nobody')).toBeNull();
      expect(await repo.asDetected(tenant, 'not an id!')).toBeNull();
      expect(await repo.asDetected(newTenant('owed-detection-other'), 'd-1')).toBeNull();
    });

    it('claims and marks a detection apart from its changes, once and for good', async () => {
      const repo = getStore().anomalies;
      const tenant = newTenant('owed-detection-mark');
      await repo.insert(tenant, anomaly('e-1'), owed('rec-e1', 'writer', 10));
      await repo.appendTransition(tenant, transition('e-1', 1, 'OPEN', 'RESOLVED'), owed('rec-e1-1', 'writer', 10));
      expect(await repo.claimAudit(tenant, detection('e-1'), { owner: 'early', until: at(200) }, at(9))).toBe(false);
      expect(await repo.claimAudit(tenant, detection('e-1'), { owner: 'follower', until: at(200) }, at(11))).toBe(true);
      expect(await repo.claimAudit(tenant, detection('e-1'), { owner: 'other', until: at(200) }, at(11))).toBe(false);
      expect((await owedOf(repo, tenant, 100)).map((o) => o.recordId)).toEqual(['rec-e1-1']);
      await repo.markAudited(tenant, detection('e-1'), at(20));
      await repo.markAudited(tenant, detection('e-1'), at(30));
      await repo.markAudited(tenant, detection('nobody'), at(30));
      expect((await owedOf(repo, tenant, 5000)).map((o) => o.recordId)).toEqual(['rec-e1-1']);
      expect(await repo.claimAudit(tenant, detection('e-1'), { owner: 'late', until: at(6000) }, at(5000))).toBe(false);
      // An anomaly stored owing nothing is no outbox entry.
      await repo.insert(tenant, anomaly('e-2', { ...KEY, version: 5 }));
      expect(await repo.claimAudit(tenant, detection('e-2'), { owner: 'late', until: at(6000) }, at(5000))).toBe(false);
      await expect(repo.claimAudit(tenant, { kind: 'opening', anomalyId: 'e-1' } as never, { owner: 'p', until: at(1) }, at(0))).rejects.toBeInstanceOf(StoreArgumentError);
      await expect(repo.insert(tenant, anomaly('e-3', { ...KEY, version: 6 }), owed('', 'p', 10))).rejects.toBeInstanceOf(StoreArgumentError);
      expect(await repo.get(tenant, 'e-3')).toBeNull();
    });

    it('lets exactly one of many concurrent claimers on separate connections take an ended claim', async () => {
      const tenant = newTenant('owed-detection-race');
      await getStore().anomalies.insert(tenant, anomaly('r-1'), owed('rec-r1', 'dead', 10));
      const stores = [getStore(), ...(await Promise.all([1, 2, 3].map(() => getTarget().connect())))];
      for (const round of [1, 2, 3]) {
        const now = at(10 + round * 100);
        const wins = await Promise.all(
          stores.flatMap((s, i) => Array.from({ length: 5 }, (_, j) => s.anomalies.claimAudit(tenant, detection('r-1'), { owner: `c-${round}-${i}-${j}`, until: at(10 + round * 100 + 50) }, now))),
        );
        expect(wins.filter(Boolean)).toHaveLength(1);
      }
    }, 60_000);
  });

  describe('anomaly settings', () => {
    it('replaces a tenant’s overrides as a whole and keeps tenants apart', async () => {
      const store = getStore();
      const tenant = newTenant('settings');
      expect(await store.anomalySettings.get(tenant)).toBeNull();
      const first = { values: { minSamples: 20, failureRateThreshold: 0.1 }, actorId: 'alice', updatedAt: '2026-05-01T10:00:00.000Z' };
      await store.anomalySettings.put(tenant, first);
      expect(await store.anomalySettings.get(tenant)).toEqual(first);
      const second = { values: { windowMinutes: 30 }, actorId: 'bob', updatedAt: '2026-05-01T11:00:00.000Z' };
      await store.anomalySettings.put(tenant, second);
      expect(await store.anomalySettings.get(tenant)).toEqual(second);
      expect(await store.anomalySettings.get(newTenant('settings-other'))).toBeNull();
      await expect(store.anomalySettings.put(tenant, { ...second, values: { minSamples: Number.NaN } })).rejects.toBeInstanceOf(StoreArgumentError);
      const racers = await Promise.all(Array.from({ length: 3 }, () => getTarget().connect()));
      const fresh = newTenant('settings-race');
      await Promise.all(racers.map((s, i) => s.anomalySettings.put(fresh, { ...first, actorId: `racer-${i}` })));
      expect((await store.anomalySettings.get(fresh))?.actorId).toMatch(/^racer-\d$/);
    });
  });
}
