import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAuditChainWriter, type AuditChainWriter } from '../../audit/index.js';
import { openSqliteStore, type RollupIncrement, type SqliteStore } from '../../store/index.js';
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
  let audit: AuditChainWriter;
  let now: number;
  let ids: number;

  function detector(): AnomalyDetector {
    const settings = createAnomalySettings({ repository: store.anomalySettings, defaults: DEFAULT_DETECTION_SETTINGS, audit });
    return createAnomalyDetector({
      store,
      settings,
      audit,
      builtinModules: new Set(),
      now: () => new Date(now),
      newId: () => `anomaly-${(ids += 1)}`,
    });
  }

  async function detected(): Promise<number> {
    await audit.flush();
    return (await store.audit.list(TENANT, { eventType: ANOMALY_DETECTED, limit: 100 })).length;
  }

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    audit = createAuditChainWriter(store.audit);
    now = T0;
    ids = 0;
    await store.rollups.add(TENANT, [bucket(T0 - 10 * 60_000, 100, 30)]);
  });

  afterEach(async () => {
    await audit.close();
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
    expect(reports.reduce((sum, r) => sum + r.updated, 0)).toBe(2);
    expect((await store.anomalies.list(TENANT, { detectedFrom: new Date(0).toISOString(), offset: 0, limit: 10 })).total).toBe(1);
    expect(await detected()).toBe(1);
  });

  it('finds nothing below the sample floor or the Wilson bound, and nothing outside the window', async () => {
    await store.rollups.add('quiet', [bucket(T0 - 60_000, 10, 3)]);
    await store.rollups.add('old', [bucket(T0 - 2 * HOUR, 500, 400)]);
    const run = await detector().detectAll();
    expect(run.tenants.map((t) => [t.tenantId, t.opened])).toEqual([
      [TENANT, 1],
      ['old', 0],
      ['quiet', 0],
    ]);
    expect(run.failures).toEqual([]);
  });
});
