import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAuditTrail, type AuditTrail } from '../../audit/index.js';
import type { RollupIncrement } from '../../rollups/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import { createAnomalyDetector, type AnomalyDetector } from '../anomaly-detector.js';
import { ANOMALY_DETECTED } from '../anomaly-events.js';
import { createAnomalySettings } from '../anomaly-settings.js';
import { DEFAULT_DETECTION_SETTINGS } from '../detection-settings.js';

const T0 = Date.parse('2026-05-04T10:00:00.000Z');
const HOUR = 3_600_000;
const TENANT = 'acme';
const KEY = { type: 'HIGH_FAILURE_RATE', policyModule: 'acme.claims', policyFunction: 'assess', version: 1 } as const;

/** `count` evaluations of acme.claims.assess@1 in the minute of `at`, `failures` of them failed. */
function bucket(at: number, count: number, failures: number): RollupIncrement {
  return {
    policyModule: 'acme.claims',
    policyFunction: 'assess',
    version: 1,
    minute: new Date(Math.floor(at / 60_000) * 60_000).toISOString(),
    count,
    failures,
    timeSum: count,
    timeSquares: count,
    max: 1,
  };
}

describe('anomaly detector on a real store', () => {
  let store: SqliteStore;
  let trail: AuditTrail;
  let now: number;
  let ids: number;

  function detector(): AnomalyDetector {
    const settings = createAnomalySettings({ repository: store.anomalySettings, defaults: DEFAULT_DETECTION_SETTINGS, audit: trail.recorder });
    return createAnomalyDetector({
      store,
      settings,
      audit: trail.recorder,
      builtinModules: new Set(),
      now: () => new Date(now),
      newId: () => `anomaly-${(ids += 1)}`,
    });
  }

  async function detected(): Promise<number> {
    await trail.flush();
    return (await store.audit.list(TENANT, { eventType: ANOMALY_DETECTED, limit: 100 })).length;
  }

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    trail = createAuditTrail(store.auditLinks);
    now = T0;
    ids = 0;
    await store.rollups.add(TENANT, [bucket(T0 - 10 * 60_000, 100, 30)]);
  });

  afterEach(async () => {
    await trail.close();
    await store.close();
  });

  it('opens one anomaly and updates it on every later detection', async () => {
    const first = await detector().detectTenant(TENANT);
    expect(first).toMatchObject({ tenantId: TENANT, versions: 1, opened: 1, updated: 0, suppressed: 0, windowEnd: new Date(T0).toISOString() });
    now += 60_000;
    await store.rollups.add(TENANT, [bucket(now - 1000, 100, 60)]);
    const second = await detector().detectTenant(TENANT);
    expect(second).toMatchObject({ opened: 0, updated: 1 });
    const live = await store.anomalies.latest(TENANT, KEY);
    expect(live).toMatchObject({ id: 'anomaly-1', occurrence: 1, status: 'OPEN', detectedAt: new Date(T0).toISOString() });
    expect(live?.observation.observedAt).toBe(new Date(now).toISOString());
    expect(live?.observation.metrics).toMatchObject({ sampleSize: 200, failureRate: 0.45 });
    expect(await detected()).toBe(1);
  });

  it('opens a new occurrence after the anomaly was resolved', async () => {
    await detector().detectTenant(TENANT);
    await store.anomalies.appendTransition(TENANT, {
      anomalyId: 'anomaly-1', seq: 1, from: 'OPEN', to: 'RESOLVED', note: null, actorId: 'alice', occurredAt: new Date(T0).toISOString(),
    });
    now += 5 * 60_000;
    expect(await detector().detectTenant(TENANT)).toMatchObject({ opened: 1 });
    expect(await store.anomalies.latest(TENANT, KEY)).toMatchObject({ id: 'anomaly-2', occurrence: 2, status: 'OPEN' });
    expect((await store.anomalies.get(TENANT, 'anomaly-1'))?.status).toBe('RESOLVED');
    expect(await detected()).toBe(2);
  });

  it('does not open a dismissed key again within the cooldown, and does after it', async () => {
    await detector().detectTenant(TENANT);
    await store.anomalies.appendTransition(TENANT, {
      anomalyId: 'anomaly-1', seq: 1, from: 'OPEN', to: 'DISMISSED', note: 'known', actorId: 'alice', occurredAt: new Date(T0).toISOString(),
    });
    now = T0 + 23 * HOUR;
    await store.rollups.add(TENANT, [bucket(now - 60_000, 100, 30)]);
    expect(await detector().detectTenant(TENANT)).toMatchObject({ opened: 0, suppressed: 1 });
    now = T0 + 24 * HOUR + 60_000;
    await store.rollups.add(TENANT, [bucket(now - 60_000, 100, 30)]);
    expect(await detector().detectTenant(TENANT)).toMatchObject({ opened: 1, suppressed: 0 });
    expect(await store.anomalies.latest(TENANT, KEY)).toMatchObject({ occurrence: 2, status: 'OPEN' });
  });

  it('honours the tenant override of the cooldown', async () => {
    await store.anomalySettings.put(TENANT, { values: { dismissCooldownHours: 1 }, actorId: 'alice', updatedAt: new Date(T0).toISOString() });
    await detector().detectTenant(TENANT);
    await store.anomalies.appendTransition(TENANT, {
      anomalyId: 'anomaly-1', seq: 1, from: 'OPEN', to: 'DISMISSED', note: null, actorId: 'alice', occurredAt: new Date(T0).toISOString(),
    });
    now = T0 + 2 * HOUR;
    await store.rollups.add(TENANT, [bucket(now - 60_000, 100, 30)]);
    expect(await detector().detectTenant(TENANT)).toMatchObject({ opened: 1 });
  });

  it('opens a single anomaly when detections race', async () => {
    const reports = await Promise.all([detector().detectTenant(TENANT), detector().detectTenant(TENANT), detector().detectTenant(TENANT)]);
    expect(reports.reduce((sum, r) => sum + r.opened, 0)).toBe(1);
    // The losers find the winner's anomaly with their own numbers: the same, so nothing is written.
    expect(reports.reduce((sum, r) => sum + r.unchanged, 0)).toBe(2);
    expect((await store.anomalies.list(TENANT, { detectedFrom: new Date(0).toISOString(), offset: 0, limit: 10 })).total).toBe(1);
    expect(await detected()).toBe(1);
  });

  it('finds nothing below the sample floor or the Wilson bound, and nothing outside the window', async () => {
    await store.rollups.add('quiet', [bucket(T0 - 60_000, 10, 3)]);
    await store.rollups.add('old', [bucket(T0 - 2 * HOUR, 500, 400)]);
    await store.rollups.add('gone', [bucket(T0 - 25 * HOUR, 500, 400)]);
    const tenants = await detector().tenantsToDetect();
    expect(tenants).toEqual([TENANT, 'old', 'quiet']);
    const reports = await Promise.all(tenants.map((tenantId) => detector().detectTenant(tenantId)));
    expect(reports.map((t) => [t.tenantId, t.versions, t.opened])).toEqual([
      [TENANT, 1, 1],
      ['old', 0, 0],
      ['quiet', 1, 0],
    ]);
  });

  it('leaves an unchanged finding as stored until it is a window old, and writes a changed one', async () => {
    await detector().detectTenant(TENANT);
    now += 10 * 60_000;
    expect(await detector().detectTenant(TENANT)).toMatchObject({ opened: 0, updated: 0, unchanged: 1 });
    expect((await store.anomalies.latest(TENANT, KEY))?.observation.observedAt).toBe(new Date(T0).toISOString());
    // A stored observation a window (an hour) old is written again, even with the same numbers.
    const stored = (await store.anomalies.latest(TENANT, KEY))!;
    await store.anomalies.update(TENANT, stored.id, { observation: { ...stored.observation, observedAt: new Date(now - HOUR).toISOString() } });
    expect(await detector().detectTenant(TENANT)).toMatchObject({ updated: 1, unchanged: 0 });
    expect((await store.anomalies.latest(TENANT, KEY))?.observation.observedAt).toBe(new Date(now).toISOString());
    now += 60_000;
    expect(await detector().detectTenant(TENANT)).toMatchObject({ updated: 0, unchanged: 1 });
    // New evaluations change the numbers: written at once.
    now += 60_000;
    await store.rollups.add(TENANT, [bucket(now - 1000, 10, 10)]);
    expect(await detector().detectTenant(TENANT)).toMatchObject({ updated: 1, unchanged: 0 });
    expect((await store.anomalies.latest(TENANT, KEY))?.observation.metrics).toMatchObject({ sampleSize: 110, failures: 40 });
  });
});

describe('anomaly detector budget', () => {
  let store: SqliteStore;
  let trail: AuditTrail;
  const VERSIONS = 23;

  /** Version v of acme.bulk.f{v % 3}: one failed evaluation each, which the settings below make an anomaly. */
  function failing(version: number): RollupIncrement {
    return { ...bucket(T0 - 5 * 60_000, 1, 1), policyModule: 'acme.bulk', policyFunction: `f${version % 3}`, version };
  }

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    trail = createAuditTrail(store.auditLinks);
    await store.rollups.add(TENANT, Array.from({ length: VERSIONS }, (_, v) => failing(v + 1)));
    await store.anomalySettings.put(TENANT, { values: { minSamples: 1, failureRateThreshold: 0.0001 }, actorId: 'alice', updatedAt: new Date(T0).toISOString() });
  });

  afterEach(async () => {
    await trail.close();
    await store.close();
  });

  function detector(budget: { versionsPerRound: number; openedPerRound: number }): AnomalyDetector {
    const settings = createAnomalySettings({ repository: store.anomalySettings, defaults: DEFAULT_DETECTION_SETTINGS, audit: trail.recorder });
    return createAnomalyDetector({ store, settings, audit: trail.recorder, builtinModules: new Set(), budget, now: () => new Date(T0) });
  }

  async function openKeys(): Promise<string[]> {
    const page = await store.anomalies.list(TENANT, { detectedFrom: new Date(0).toISOString(), offset: 0, limit: 100 });
    return page.items.map((a) => `${a.policyFunction}@${a.version}`).sort();
  }

  it('opens at most the budget per round and goes on after the last version assessed, round after round', async () => {
    const d = detector({ versionsPerRound: 1000, openedPerRound: 5 });
    let after = null;
    const opened: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      const report = await d.detectTenant(TENANT, after);
      expect(report.versions).toBe(VERSIONS);
      opened.push(report.opened);
      after = report.continueAfter;
    }
    expect(opened).toEqual([5, 5, 5, 5, 3]);
    expect(after).toBeNull();
    expect(await openKeys()).toHaveLength(VERSIONS);
    await trail.flush();
    expect(await store.audit.list(TENANT, { eventType: ANOMALY_DETECTED, limit: 100 }).then((r) => r.length)).toBeLessThanOrEqual(VERSIONS);
  });

  it('assesses at most the budget of versions per round, each in turn, wrapping round the end', async () => {
    const d = detector({ versionsPerRound: 10, openedPerRound: 1000 });
    const first = await d.detectTenant(TENANT, null);
    expect(first).toMatchObject({ versions: VERSIONS, assessed: 10, opened: 10 });
    const second = await d.detectTenant(TENANT, first.continueAfter);
    expect(second).toMatchObject({ assessed: 10, opened: 10 });
    // The third round assesses the last 3 and goes round to the first 7, which it finds unchanged.
    const third = await d.detectTenant(TENANT, second.continueAfter);
    expect(third).toMatchObject({ assessed: 10, opened: 3, unchanged: 7 });
    expect(await openKeys()).toHaveLength(VERSIONS);
    const fourth = await d.detectTenant(TENANT, third.continueAfter);
    expect(fourth).toMatchObject({ assessed: 10, opened: 0, unchanged: 10 });
    expect(fourth.continueAfter).not.toBeNull();
  });

  it('covers every version in one round when the budget allows, and starts at the first again', async () => {
    const report = await detector({ versionsPerRound: VERSIONS, openedPerRound: VERSIONS }).detectTenant(TENANT, null);
    expect(report).toMatchObject({ assessed: VERSIONS, opened: VERSIONS, continueAfter: null });
  });
});
