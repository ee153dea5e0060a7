// The scheduled detector resolves an OPEN anomaly on its own once its condition has not held for
// the tenant's `autoResolveMinutes`, on each store: it finds the tenant's OPEN anomalies in the
// store (a version nobody evaluates any more is never assessed again), measures from the stored
// observation (which an unchanged finding leaves as it is for up to a window), and resolves through
// the audited status changes, as the detector, with a note.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANOMALY_STATUS_CHANGED,
  createAnomalyDetector,
  createAnomalySettings,
  DEFAULT_DETECTION_SETTINGS,
  DETECTOR_ACTOR,
  type AnomalyKey,
  type DetectionBudget,
  type StoredAnomaly,
  type TenantDetection,
} from '../../src/anomalies/index.js';
import { createAuditTrail, type AuditTrail } from '../../src/audit/index.js';
import type { PolicyModuleVersion } from '../../src/policies/index.js';
import type { RollupIncrement, RollupVersionKey } from '../../src/rollups/index.js';
import { openMongoStore, openSqliteStore, type Store } from '../../src/store/index.js';
import { describeWithMongo, dropMongoDatabase, uniqueDatabaseName } from '../support/index.js';

const T0 = Date.parse('2026-05-04T10:00:00.000Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (at: number) => new Date(at).toISOString();
const CLAIMS: RollupVersionKey = { policyModule: 'acme.claims', policyFunction: 'assess', version: 1 };
const FAILING: AnomalyKey = { type: 'HIGH_FAILURE_RATE', ...CLAIMS };

/** `count` evaluations of `ref` in the minute of `at`, `failures` of them failed. */
function bucket(at: number, count: number, failures: number, ref: RollupVersionKey = CLAIMS): RollupIncrement {
  return { ...ref, minute: iso(Math.floor(at / MINUTE) * MINUTE), count, failures, timeSum: count, timeSquares: count, max: 1 };
}

function runAutoResolve(openStore: () => Promise<Store>, dispose: () => Promise<void> = async () => {}): void {
  let store: Store;
  let trail: AuditTrail;
  let now: number;
  let ids = 0;
  let tenants = 0;
  const newTenant = (label: string) => `${label}-${(tenants += 1)}`;

  beforeAll(async () => {
    store = await openStore();
    trail = createAuditTrail(store.auditLinks);
  });

  afterAll(async () => {
    await trail?.close();
    await store?.close();
    await dispose();
  });

  function round(tenantId: string, budget?: DetectionBudget): Promise<TenantDetection> {
    const settings = createAnomalySettings({ repository: store.anomalySettings, defaults: DEFAULT_DETECTION_SETTINGS, audit: trail.recorder });
    const detector = createAnomalyDetector({
      store,
      settings,
      audit: trail.recorder,
      builtinModules: new Set(),
      now: () => new Date(now),
      newId: () => `anomaly-${(ids += 1)}`,
      ...(budget ? { budget } : {}),
    });
    return detector.detectTenant(tenantId);
  }

  const latest = async (tenantId: string, key: AnomalyKey = FAILING) => (await store.anomalies.latest(tenantId, key))!;

  /** A tenant whose claims policy failed 30 % of 100 evaluations ten minutes before T0, and the anomaly a round at T0 opened. */
  async function openedAtT0(label: string): Promise<{ tenant: string; id: string }> {
    const tenant = newTenant(label);
    now = T0;
    await store.rollups.add(tenant, [bucket(T0 - 10 * MINUTE, 100, 30)]);
    expect(await round(tenant)).toMatchObject({ opened: 1, resolved: 0 });
    return { tenant, id: (await latest(tenant)).id };
  }

  it('resolves an OPEN anomaly once its condition has not held for autoResolveMinutes, not before, as the detector, with a note and its record', async () => {
    const { tenant, id } = await openedAtT0('cleared');
    // The failing minute is still in the window: found again with the same numbers, so the stored
    // observation stays at T0, 45 minutes old, while the condition holds.
    now = T0 + 45 * MINUTE;
    expect(await round(tenant)).toMatchObject({ unchanged: 1, resolved: 0 });
    // It left the window at T0 + 50 min. An unchanged finding is written again once a window (60
    // min) old, so the condition may have held until T0 + 60 min: it is resolved 30 minutes after that.
    now = T0 + 90 * MINUTE;
    expect(await round(tenant)).toMatchObject({ versions: 0, resolved: 0 });
    expect((await latest(tenant)).status).toBe('OPEN');
    now = T0 + 91 * MINUTE;
    expect(await round(tenant)).toMatchObject({ versions: 0, resolved: 1 });
    expect(await latest(tenant)).toMatchObject({ id, status: 'RESOLVED', statusSeq: 1, statusChangedAt: iso(now) });
    const [change, ...more] = await store.anomalies.transitions(tenant, id);
    expect(more).toEqual([]);
    expect(change).toMatchObject({ seq: 1, from: 'OPEN', to: 'RESOLVED', actorId: DETECTOR_ACTOR, occurredAt: iso(now) });
    expect(change!.note).toMatch(/^resolved automatically: the condition has not held since 2026-05-04T11:00:00\.000Z \(31 minutes\), nor between \S+ and 2026-05-04T11:31:00\.000Z$/);
    await trail.flush();
    const records = await store.audit.list(tenant, { eventType: ANOMALY_STATUS_CHANGED, limit: 10 });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ actorId: DETECTOR_ACTOR, payload: { anomalyId: id, type: 'HIGH_FAILURE_RATE', from: 'OPEN', to: 'RESOLVED', note: change!.note } });
    expect((await store.anomalies.owedAudits(iso(now + 24 * HOUR), 1000)).filter((owed) => owed.tenantId === tenant)).toEqual([]);
    now += 10 * MINUTE;
    expect(await round(tenant)).toMatchObject({ resolved: 0 });
    // Failing again: the key's next occurrence.
    await store.rollups.add(tenant, [bucket(now - MINUTE, 100, 30)]);
    expect(await round(tenant)).toMatchObject({ opened: 1, resolved: 0 });
    expect(await latest(tenant)).toMatchObject({ occurrence: 2, status: 'OPEN' });
  });

  it('leaves an anomaly OPEN for as long as its finding holds', async () => {
    const { tenant, id } = await openedAtT0('holding');
    for (now = T0 + 10 * MINUTE; now <= T0 + 4 * HOUR; now += 10 * MINUTE) {
      await store.rollups.add(tenant, [bucket(now - MINUTE, 100, 30)]);
      expect(await round(tenant), iso(now)).toMatchObject({ opened: 0, resolved: 0 });
    }
    expect(await latest(tenant)).toMatchObject({ id, status: 'OPEN', statusSeq: 0 });
  });

  it('resolves nothing with autoResolveMinutes 0', async () => {
    const { tenant, id } = await openedAtT0('never');
    await store.anomalySettings.put(tenant, { values: { autoResolveMinutes: 0 }, actorId: 'alice', updatedAt: iso(T0) });
    now = T0 + 10 * HOUR;
    expect(await round(tenant)).toMatchObject({ resolved: 0 });
    expect(await latest(tenant)).toMatchObject({ id, status: 'OPEN' });
    expect(await store.anomalies.transitions(tenant, id)).toEqual([]);
  });

  it('leaves a VERIFYING anomaly to its verification', async () => {
    const { tenant, id } = await openedAtT0('verifying');
    await store.anomalies.appendTransition(tenant, { anomalyId: id, seq: 1, from: 'OPEN', to: 'VERIFYING', note: null, actorId: 'alice', occurredAt: iso(T0) });
    now = T0 + 10 * HOUR;
    expect(await round(tenant)).toMatchObject({ resolved: 0 });
    expect(await latest(tenant)).toMatchObject({ id, status: 'VERIFYING', statusSeq: 1 });
  });

  it('resolves the ZOMBIE_VERSION anomaly of a version that gets no traffic any more, which no round assesses again', async () => {
    const tenant = newTenant('zombie');
    const fees = (version: number): RollupVersionKey => ({ policyModule: 'acme.fees', policyFunction: 'fee', version });
    const deployed = (version: number, at: number): PolicyModuleVersion => ({
      policyModule: 'acme.fees', version, source: `Module acme.fees. (${version})`, locale: 'en-US', sourceHash: `h${version}`, functions: [], actorId: 'alice', createdAt: iso(at),
    });
    for (const [version, at] of [[1, T0 - 3 * HOUR], [2, T0 - 2 * HOUR]] as const) {
      await store.policies.insertVersion(tenant, deployed(version, at));
      const activation = { policyModule: 'acme.fees', seq: version, kind: 'DEPLOY' as const, version, previousVersion: version === 1 ? null : 1, highestDeployed: version, actorId: 'alice', occurredAt: iso(at), rollout: null };
      expect(await store.policies.appendActivation(tenant, activation)).toBe(true);
    }
    // Clients pinned to version 1, superseded two hours ago, still call it.
    now = T0;
    await store.rollups.add(tenant, [bucket(T0 - 10 * MINUTE, 60, 0, fees(1)), bucket(T0 - 10 * MINUTE, 20, 0, fees(2))]);
    expect(await round(tenant)).toMatchObject({ opened: 1 });
    const zombie: AnomalyKey = { type: 'ZOMBIE_VERSION', ...fees(1) };
    const { id } = await latest(tenant, zombie);
    // They moved to version 2: only version 2 is evaluated from then on. Version 1's last minute
    // leaves the window at T0 + 50 min, the last round that finds (and observes) the zombie; from
    // then on no round assesses version 1, and the round after T0 + 50 + 60 + 30 min resolves it.
    const resolvedAt: string[] = [];
    for (now = T0 + 10 * MINUTE; now <= T0 + 3 * HOUR; now += 10 * MINUTE) {
      await store.rollups.add(tenant, [bucket(now - MINUTE, 20, 0, fees(2))]);
      const report = await round(tenant);
      if (report.resolved > 0) resolvedAt.push(iso(now));
      if (now > T0 + 50 * MINUTE) expect(report.versions, iso(now)).toBe(1);
    }
    expect(resolvedAt).toEqual([iso(T0 + 150 * MINUTE)]);
    expect(await latest(tenant, zombie)).toMatchObject({ id, status: 'RESOLVED', observation: { observedAt: iso(T0 + 50 * MINUTE) } });
    expect((await store.anomalies.transitions(tenant, id))[0]).toMatchObject({ from: 'OPEN', to: 'RESOLVED', actorId: DETECTOR_ACTOR });
  });

  it('touches no other tenant’s anomalies', async () => {
    const { tenant, id } = await openedAtT0('resolving');
    const { tenant: bystander, id: theirs } = await openedAtT0('bystander');
    now = T0 + 3 * HOUR;
    expect(await round(tenant)).toMatchObject({ resolved: 1 });
    expect((await store.anomalies.get(tenant, id))?.status).toBe('RESOLVED');
    expect(await store.anomalies.get(bystander, theirs)).toMatchObject({ status: 'OPEN', statusSeq: 0 });
    expect(await store.anomalies.transitions(bystander, theirs)).toEqual([]);
  });

  it('assesses an old observation again before resolving: a version the rotation did not reach stays OPEN while it fails', async () => {
    const tenant = newTenant('rotation');
    const claims = (version: number): RollupVersionKey => ({ ...CLAIMS, version });
    now = T0 + 3 * HOUR;
    await store.rollups.add(tenant, [bucket(now - 10 * MINUTE, 100, 30, claims(1)), bucket(now - 10 * MINUTE, 100, 30, claims(2))]);
    // Version 2's anomaly was last observed hours ago; this round's budget assesses version 1 only.
    const observedAt = iso(T0);
    const stale: StoredAnomaly = {
      ...FAILING, version: 2, id: 'rotation-2', occurrence: 1, detectedAt: observedAt, verification: null,
      observation: { observedAt, severity: 'HIGH', summary: 'version 2 failed', metrics: {}, recommendedActions: [] },
    };
    expect(await store.anomalies.insert(tenant, stale)).toBe(true);
    expect(await round(tenant, { versionsPerRound: 1, openedPerRound: 100 })).toMatchObject({ assessed: 1, opened: 1, updated: 1, resolved: 0 });
    expect(await store.anomalies.get(tenant, 'rotation-2')).toMatchObject({ status: 'OPEN', observation: { observedAt: iso(now), metrics: { failureRate: 0.3 } } });
  });

  it('resolves at most the budget per round, oldest observation first, and the rest in the next rounds', async () => {
    const tenant = newTenant('budget');
    // Versions 1 to 5 failed long ago, version 5 first; none of them is evaluated any more.
    for (let version = 1; version <= 5; version += 1) {
      const observedAt = iso(T0 - version * MINUTE);
      const anomaly: StoredAnomaly = {
        ...FAILING, version, id: `budget-${version}`, occurrence: 1, detectedAt: observedAt, verification: null,
        observation: { observedAt, severity: 'HIGH', summary: `version ${version} failed`, metrics: {}, recommendedActions: [] },
      };
      expect(await store.anomalies.insert(tenant, anomaly)).toBe(true);
    }
    const budget = { versionsPerRound: 1000, openedPerRound: 2 };
    const resolvedIds = async () =>
      (await store.anomalies.list(tenant, { detectedFrom: iso(0), offset: 0, limit: 10 })).items.filter((a) => a.status === 'RESOLVED').map((a) => a.id).sort();
    now = T0 + 3 * HOUR;
    expect(await round(tenant, budget)).toMatchObject({ resolved: 2 });
    expect(await resolvedIds()).toEqual(['budget-4', 'budget-5']);
    expect(await round(tenant, budget)).toMatchObject({ resolved: 2 });
    expect(await resolvedIds()).toEqual(['budget-2', 'budget-3', 'budget-4', 'budget-5']);
    expect(await round(tenant, budget)).toMatchObject({ resolved: 1 });
    expect(await round(tenant, budget)).toMatchObject({ resolved: 0 });
  });
}

describe('anomaly auto-resolution on SQLite', () => {
  runAutoResolve(() => openSqliteStore(':memory:'));
});

describeWithMongo('anomaly auto-resolution on MongoDB', (url) => {
  const database = uniqueDatabaseName('pe_test_auto_resolve');
  runAutoResolve(
    () => openMongoStore({ url, database }),
    () => dropMongoDatabase(url, database),
  );
});
