// Anomaly status changes whose audit write fails: the change is stored owing its
// ANOMALY_STATUS_CHANGED record, and the audit outbox follower writes exactly one record for it,
// made of the stored change, however many processes race for it. On SQLite and on MongoDB
// (FerretDB in CI: no transactions, and an update is no compare-and-set). Failures are injected by
// wrapping the repositories; time is a clock the test moves, so the 60 s claims end without waiting.
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  anomalyAuditOutbox,
  createAnomalyDetector,
  createAnomalySettings,
  createAnomalyTriage,
  createAnomalyVerifier,
  DEFAULT_DETECTION_SETTINGS,
  detectedRecordId,
  statusChangedRecordId,
  type AnomalyDetector,
  type AnomalyRepository,
  type AnomalyTriage,
  type AnomalyVerifier,
  type StoredAnomaly,
  type VerificationRequest,
} from '../../src/anomalies/index.js';
import { createAnomalyRoutes } from '../../src/api/index.js';
import {
  createAuditOutboxFollower,
  newAuditOutboxLease,
  verifyChain,
  type AuditLinkRepository,
  type AuditOutboxFollower,
  type AuditRecord,
} from '../../src/audit/index.js';
import type { JwtKeyRing } from '../../src/auth/index.js';
import { deployedRecordId, registryAuditOutbox } from '../../src/policies/index.js';
import type { RollupIncrement } from '../../src/rollups/index.js';
import type { Store } from '../../src/store/index.js';
import {
  auditFailing,
  connectRedis,
  createBearerCaller,
  createProcessTrails,
  createTestApp,
  describeWithMongo,
  InjectedFailure,
  listen,
  mongoTarget,
  newKeyRing,
  removeRedisPrefix,
  seedAnomalies,
  sqliteTarget,
  testClock,
  type BearerCall,
  type HttpListener,
  type ProcessTrails,
  type StoreTarget,
} from '../support/index.js';

const LEASE_MS = 60_000;
const T0 = Date.UTC(2026, 5, 1, 12);
const STATUS_CHANGED = 'ANOMALY_STATUS_CHANGED';
const DETECTED = 'ANOMALY_DETECTED';

/** `count` evaluations of acme.claims.assess@1 in the minute of `at`, `failures` of them failed. */
function bucket(at: number, count: number, failures: number): RollupIncrement {
  const minute = new Date(Math.floor(at / 60_000) * 60_000).toISOString();
  return { policyModule: 'acme.claims', policyFunction: 'assess', version: 1, minute, count, failures, timeSum: count, timeSquares: count, max: 1 };
}

/** An anomaly repository whose marks fail `times` times: the process stopped between append and mark. */
function marksFailing(repository: AnomalyRepository, times: number): AnomalyRepository {
  let left = times;
  return {
    ...repository,
    async markAudited(...args) {
      if (left > 0) {
        left -= 1;
        throw new InjectedFailure('stopped before marking');
      }
      return repository.markAudited(...args);
    },
  };
}

/** One process: its own connection, audit trail, claim owner, triage (over HTTP), verifier and follower. */
interface Process {
  store: Store;
  triage: AnomalyTriage;
  verifier: AnomalyVerifier;
  detector: AnomalyDetector;
  follower: AuditOutboxFollower;
  /** REST calls to this process's anomaly routes. */
  call: BearerCall;
  /** Verification jobs the triage queued. */
  queued: VerificationRequest[];
  markErrors: unknown[];
}

function runOutboxSuite(makeTarget: () => StoreTarget): void {
  let target: StoreTarget;
  let clock: ReturnType<typeof testClock>;
  let redis: Redis;
  let keyRing: JwtKeyRing;
  const prefix = `test-anomaly-outbox-${Math.random().toString(36).slice(2, 10)}`;
  let trails: ProcessTrails;
  const listeners: HttpListener[] = [];
  let tenantCounter = 0;
  const newTenant = () => ({ tenantId: `anomaly-outbox-${(tenantCounter += 1)}-${Math.random().toString(36).slice(2, 8)}` });

  beforeAll(async () => {
    redis = await connectRedis();
    keyRing = newKeyRing();
  });

  afterAll(async () => {
    redis.disconnect();
    await removeRedisPrefix(prefix);
  });

  beforeEach(() => {
    target = makeTarget();
    clock = testClock(T0);
    trails = createProcessTrails();
  });

  afterEach(async () => {
    for (const listener of listeners.splice(0)) await listener.close();
    await trails.close();
    await target.dispose();
  });

  async function startProcess(
    wrap: {
      audit?: (r: AuditLinkRepository) => AuditLinkRepository;
      anomalies?: (r: AnomalyRepository) => AnomalyRepository;
      /** The verification queue cannot be reached. */
      queueDown?: boolean;
    } = {},
  ): Promise<Process> {
    const store = await target.connect();
    const anomalies = wrap.anomalies?.(store.anomalies) ?? store.anomalies;
    const { recorder } = trails.open(wrap.audit?.(store.auditLinks) ?? store.auditLinks, { recorder: { now: clock.now } });
    const lease = newAuditOutboxLease(LEASE_MS);
    const markErrors: unknown[] = [];
    const queued: VerificationRequest[] = [];
    const audited = { audit: recorder, auditLease: lease, onAuditMarkError: (error: unknown) => markErrors.push(error), now: clock.now };
    const triage = createAnomalyTriage({ anomalies, ...audited, enqueueVerification: async (request) => {
        if (wrap.queueDown) throw new InjectedFailure('the queue is unreachable');
        queued.push(request);
      },
    });
    const settings = createAnomalySettings({ repository: store.anomalySettings, defaults: DEFAULT_DETECTION_SETTINGS, audit: recorder, now: clock.now });
    const verifier = createAnomalyVerifier({ store: { ...store, anomalies }, settings, builtinModules: new Set(), ...audited });
    const detector = createAnomalyDetector({ store: { ...store, anomalies }, settings, builtinModules: new Set(), ...audited });
    const follower = createAuditOutboxFollower({
      outboxes: [registryAuditOutbox(store.policies), anomalyAuditOutbox(store.anomalies)],
      auditRecords: { chain: store.audit, links: store.auditLinks },
      audit: recorder,
      lease,
      now: clock.now,
    });
    const app = createTestApp({ store, redis, keyRing, prefix, routes: [createAnomalyRoutes({ triage, settings })], now: clock.now });
    const listener = await listen(app);
    listeners.push(listener);
    return { store, triage, verifier, detector, follower, call: createBearerCaller(listener.baseUrl, keyRing), queued, markErrors };
  }

  async function seed(store: Store, tenantId: string, count = 1): Promise<StoredAnomaly[]> {
    return seedAnomalies(
      store,
      tenantId,
      Array.from({ length: count }, (_, i) => ({ type: 'HIGH_FAILURE_RATE' as const, policyModule: 'acme.pricing', policyFunction: 'price', version: i + 1 })),
    );
  }

  /** The tenant's chain once every process's appends are stored and linked. */
  async function chainOf(store: Store, tenantId: string): Promise<AuditRecord[]> {
    await trails.linked();
    const records: AuditRecord[] = [];
    for await (const record of store.audit.scan(tenantId, 1, 1000)) records.push(record);
    return records;
  }

  const statusRecords = async (store: Store, tenantId: string) => (await chainOf(store, tenantId)).filter((r) => r.eventType === STATUS_CHANGED);

  async function expectVerified(store: Store, tenantId: string): Promise<void> {
    await trails.linked();
    expect(await verifyChain(store.audit, tenantId)).toMatchObject({ valid: true, firstInvalidSeq: null });
  }

  it('a PATCH whose audit append fails is stored, owed, and recorded once by the follower after its claim', async () => {
    const tenant = newTenant();
    const a = await startProcess({ audit: (r) => auditFailing(r, STATUS_CHANGED) });
    const [anomaly] = await seed(a.store, tenant.tenantId);
    const path = `/api/v1/audit/anomalies/${anomaly!.id}/status`;
    const changedAt = clock.now().toISOString();
    const failed = await a.call(tenant, 'ADMIN', 'PATCH', path, { status: 'DISMISSED', note: 'known batch job' });
    expect(failed.status).toBe(500);
    expect(await a.store.anomalies.transitions(tenant.tenantId, anomaly!.id)).toEqual([
      { anomalyId: anomaly!.id, seq: 1, from: 'OPEN', to: 'DISMISSED', note: 'known batch job', actorId: `admin-of-${tenant.tenantId}`, occurredAt: changedAt },
    ]);
    expect(await statusRecords(a.store, tenant.tenantId)).toEqual([]);

    // While the changing process's claim lasts, no follower takes the record.
    const b = await startProcess();
    expect(await b.follower.followOnce()).toMatchObject({ owed: 0, written: 0 });
    clock.advance(LEASE_MS + 1);
    expect(await b.follower.followOnce()).toEqual({ owed: 1, written: 1, found: 0, skipped: 0, failed: 0 });
    expect(await a.follower.followOnce()).toMatchObject({ owed: 0 });

    const [record] = await statusRecords(a.store, tenant.tenantId);
    expect(await statusRecords(a.store, tenant.tenantId)).toHaveLength(1);
    expect(record).toMatchObject({
      id: statusChangedRecordId(tenant.tenantId, anomaly!.id, 1),
      policyModule: 'acme.pricing',
      policyFunction: 'price',
      actorId: `admin-of-${tenant.tenantId}`,
      occurredAt: changedAt,
    });
    expect(record!.payload).toEqual({
      anomalyId: anomaly!.id,
      type: 'HIGH_FAILURE_RATE',
      versionId: 'acme.pricing@1',
      from: 'OPEN',
      to: 'DISMISSED',
      note: 'known batch job',
    });
    await expectVerified(a.store, tenant.tenantId);

    // The next change is audited by its own request, in the same shape.
    const reopened = await a.call(tenant, 'ADMIN', 'PATCH', path, { status: 'OPEN' });
    expect(reopened.status).toBe(200);
    const records = await statusRecords(a.store, tenant.tenantId);
    expect(records.map((r) => r.id)).toEqual([statusChangedRecordId(tenant.tenantId, anomaly!.id, 1), statusChangedRecordId(tenant.tenantId, anomaly!.id, 2)]);
    expect(Object.keys(records[1]!.payload).sort()).toEqual(Object.keys(record!.payload).sort());
    expect(records[1]!.payload).toMatchObject({ from: 'DISMISSED', to: 'OPEN', note: null });
    clock.advance(LEASE_MS + 1);
    expect(await b.follower.followOnce()).toMatchObject({ owed: 0 });
    await expectVerified(a.store, tenant.tenantId);
  });

  it('a detection whose audit append fails is stored, owed, and recorded once with what it was detected with', async () => {
    const tenant = newTenant();
    const a = await startProcess({ audit: (r) => auditFailing(r, DETECTED) });
    await a.store.rollups.add(tenant.tenantId, [bucket(T0 - 10 * 60_000, 100, 30)]);
    const detectedAt = clock.now().toISOString();
    await expect(a.detector.detectTenant(tenant.tenantId)).rejects.toBeInstanceOf(InjectedFailure);
    const [anomaly] = (await a.store.anomalies.list(tenant.tenantId, { detectedFrom: '2000-01-01T00:00:00.000Z', offset: 0, limit: 10 })).items;
    expect(anomaly).toMatchObject({ type: 'HIGH_FAILURE_RATE', policyModule: 'acme.claims', version: 1, detectedAt, status: 'OPEN' });
    expect((await chainOf(a.store, tenant.tenantId)).filter((r) => r.eventType === DETECTED)).toEqual([]);

    // The next round finds the anomaly open and updates its observation; it opens nothing.
    clock.advance(30_000);
    await a.store.rollups.add(tenant.tenantId, [bucket(clock.now().getTime(), 100, 90)]);
    expect(await a.detector.detectTenant(tenant.tenantId)).toMatchObject({ opened: 0, updated: 1 });
    const updated = await a.store.anomalies.get(tenant.tenantId, anomaly!.id);
    expect(updated!.observation.metrics).not.toEqual(anomaly!.observation.metrics);

    const b = await startProcess();
    expect(await b.follower.followOnce()).toMatchObject({ owed: 0, written: 0 });
    clock.advance(LEASE_MS + 1);
    expect(await b.follower.followOnce()).toEqual({ owed: 1, written: 1, found: 0, skipped: 0, failed: 0 });
    expect(await a.follower.followOnce()).toMatchObject({ owed: 0 });
    const records = (await chainOf(a.store, tenant.tenantId)).filter((r) => r.eventType === DETECTED);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      id: detectedRecordId(tenant.tenantId, anomaly!.id),
      policyModule: 'acme.claims',
      policyFunction: 'assess',
      actorId: 'system:anomaly-detect',
      occurredAt: detectedAt,
    });
    expect(records[0]!.payload).toEqual({
      anomalyId: anomaly!.id,
      type: 'HIGH_FAILURE_RATE',
      versionId: 'acme.claims@1',
      occurrence: 1,
      severity: anomaly!.observation.severity,
      summary: anomaly!.observation.summary,
      metrics: anomaly!.observation.metrics,
    });
    await expectVerified(a.store, tenant.tenantId);

    // A detection whose append succeeds owes nothing afterwards.
    await a.store.rollups.add(tenant.tenantId, [{ ...bucket(clock.now().getTime(), 100, 90), version: 2 }]);
    expect(await a.detector.detectTenant(tenant.tenantId)).toMatchObject({ opened: 1 });
    expect((await chainOf(a.store, tenant.tenantId)).filter((r) => r.eventType === DETECTED)).toHaveLength(2);
    clock.advance(LEASE_MS + 1);
    expect(await b.follower.followOnce()).toMatchObject({ owed: 0 });
  });

  it('a detection recorded before its writer stopped is found by the follower, not written again', async () => {
    const tenant = newTenant();
    const a = await startProcess({ anomalies: (r) => marksFailing(r, 1) });
    await a.store.rollups.add(tenant.tenantId, [bucket(T0 - 10 * 60_000, 100, 30)]);
    expect(await a.detector.detectTenant(tenant.tenantId)).toMatchObject({ opened: 1 });
    expect(a.markErrors).toHaveLength(1);
    clock.advance(LEASE_MS + 1);
    const b = await startProcess();
    expect(await b.follower.followOnce()).toEqual({ owed: 1, written: 0, found: 1, skipped: 0, failed: 0 });
    expect((await chainOf(a.store, tenant.tenantId)).filter((r) => r.eventType === DETECTED)).toHaveLength(1);
    clock.advance(LEASE_MS + 1);
    expect(await b.follower.followOnce()).toMatchObject({ owed: 0 });
  });

  it('a record appended before its writer stopped is found, not written again', async () => {
    const tenant = newTenant();
    const a = await startProcess({ anomalies: (r) => marksFailing(r, 2) });
    const [anomaly] = await seed(a.store, tenant.tenantId);
    const path = `/api/v1/audit/anomalies/${anomaly!.id}/status`;
    // The requests are answered: their records are in the chain; only the marks are missing.
    expect((await a.call(tenant, 'ADMIN', 'PATCH', path, { status: 'RESOLVED' })).status).toBe(200);
    expect((await a.call(tenant, 'ADMIN', 'PATCH', path, { status: 'OPEN', note: 'back again' })).status).toBe(200);
    expect(a.markErrors).toHaveLength(2);
    expect(await statusRecords(a.store, tenant.tenantId)).toHaveLength(2);

    clock.advance(LEASE_MS + 1);
    const b = await startProcess();
    expect(await b.follower.followOnce()).toEqual({ owed: 2, written: 0, found: 2, skipped: 0, failed: 0 });
    const records = await statusRecords(a.store, tenant.tenantId);
    expect(records.map((r) => [r.payload.from, r.payload.to])).toEqual([
      ['OPEN', 'RESOLVED'],
      ['RESOLVED', 'OPEN'],
    ]);
    clock.advance(LEASE_MS + 1);
    expect(await b.follower.followOnce()).toMatchObject({ owed: 0 });
    await expectVerified(a.store, tenant.tenantId);
  });

  it('a verification whose records fail still runs, and its changes are recorded once with what the job found', async () => {
    const tenant = newTenant();
    const a = await startProcess({ audit: (r) => auditFailing(r, STATUS_CHANGED, 2) });
    const [anomaly] = await seed(a.store, tenant.tenantId);
    // The request's own record fails: 500, but the anomaly is VERIFYING with its job queued.
    const started = await a.call(tenant, 'ADMIN', 'POST', `/api/v1/audit/anomalies/${anomaly!.id}/actions/verify`);
    expect(started.status).toBe(500);
    expect((await a.store.anomalies.get(tenant.tenantId, anomaly!.id))?.status).toBe('VERIFYING');
    const request = { tenantId: tenant.tenantId, anomalyId: anomaly!.id, seq: 1 };
    expect(a.queued).toEqual([request]);
    // The job (no traffic: RESOLVED) stores its change, and fails at its record too.
    await expect(a.verifier.verify(request)).rejects.toBeInstanceOf(InjectedFailure);
    const log = await a.store.anomalies.transitions(tenant.tenantId, anomaly!.id);
    expect(log.map((t) => [t.from, t.to, t.actorId])).toEqual([
      ['OPEN', 'VERIFYING', `admin-of-${tenant.tenantId}`],
      ['VERIFYING', 'RESOLVED', 'system:anomaly-verify'],
    ]);
    expect(log[1]!.verification).toMatchObject({ outcome: 'RESOLVED', reason: 'NO_TRAFFIC' });
    // The job's retry finds the change settled and changes nothing.
    expect(await a.verifier.verify(request)).toMatchObject({ status: 'SKIPPED' });

    clock.advance(LEASE_MS + 1);
    const b = await startProcess();
    expect(await b.follower.followOnce()).toEqual({ owed: 2, written: 2, found: 0, skipped: 0, failed: 0 });
    const records = await statusRecords(a.store, tenant.tenantId);
    expect(records.map((r) => r.id)).toEqual([1, 2].map((seq) => statusChangedRecordId(tenant.tenantId, anomaly!.id, seq)));
    expect(records[0]!.payload).toEqual({ anomalyId: anomaly!.id, type: 'HIGH_FAILURE_RATE', versionId: 'acme.pricing@1', from: 'OPEN', to: 'VERIFYING', note: null });
    expect(records[1]).toMatchObject({ actorId: 'system:anomaly-verify', occurredAt: log[1]!.occurredAt });
    expect(records[1]!.payload).toEqual({
      anomalyId: anomaly!.id,
      type: 'HIGH_FAILURE_RATE',
      versionId: 'acme.pricing@1',
      from: 'VERIFYING',
      to: 'RESOLVED',
      note: log[1]!.note,
      verification: log[1]!.verification,
    });
    await expectVerified(a.store, tenant.tenantId);
  });

  it('a verification that cannot be queued returns the anomaly to OPEN, both changes recorded in order', async () => {
    const tenant = newTenant();
    const a = await startProcess({ queueDown: true });
    const [anomaly] = await seed(a.store, tenant.tenantId);
    const answer = await a.call<{ code: string }>(tenant, 'ADMIN', 'POST', `/api/v1/audit/anomalies/${anomaly!.id}/actions/verify`);
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('ERR_ANOMALY_VERIFICATION_UNAVAILABLE');
    expect((await a.store.anomalies.get(tenant.tenantId, anomaly!.id))?.status).toBe('OPEN');
    const records = await statusRecords(a.store, tenant.tenantId);
    expect(records.map((r) => [r.id, r.payload.from, r.payload.to, r.payload.note])).toEqual([
      [statusChangedRecordId(tenant.tenantId, anomaly!.id, 1), 'OPEN', 'VERIFYING', null],
      [statusChangedRecordId(tenant.tenantId, anomaly!.id, 2), 'VERIFYING', 'OPEN', 'verification could not be queued'],
    ]);
    clock.advance(LEASE_MS + 1);
    expect(await a.follower.followOnce()).toMatchObject({ owed: 0 });
  });

  it('two processes following the same owed changes write exactly one record for each', async () => {
    const tenants = [newTenant(), newTenant()];
    const a = await startProcess({ audit: (r) => auditFailing(r, STATUS_CHANGED, 6) });
    const expected = new Map<string, string[]>();
    for (const tenant of tenants) {
      const anomalies = await seed(a.store, tenant.tenantId, 2);
      expected.set(tenant.tenantId, []);
      for (const anomaly of anomalies) {
        for (const [seq, status] of [[1, 'DISMISSED'], [2, 'OPEN']] as const) {
          const answer = await a.call(tenant, 'ADMIN', 'PATCH', `/api/v1/audit/anomalies/${anomaly.id}/status`, { status });
          // Six appends fail, then they succeed: both kinds of change are in the race below.
          expect([200, 500]).toContain(answer.status);
          if (answer.status === 500) expected.get(tenant.tenantId)!.push(statusChangedRecordId(tenant.tenantId, anomaly.id, seq));
        }
      }
    }
    expect([...expected.values()].flat()).toHaveLength(6);

    clock.advance(LEASE_MS + 1);
    const [b, c] = await Promise.all([startProcess(), startProcess()]);
    const passes = await Promise.all([b.follower.followOnce(), c.follower.followOnce(), b.follower.followOnce(), c.follower.followOnce()]);
    expect(passes.reduce((sum, p) => sum + p.written + p.found, 0)).toBe(6);
    expect(passes.reduce((sum, p) => sum + p.failed, 0)).toBe(0);
    for (const tenant of tenants) {
      const records = await statusRecords(a.store, tenant.tenantId);
      expect(records).toHaveLength(4);
      expect(new Set(records.map((r) => r.id)).size).toBe(4);
      expect(records.map((r) => r.id)).toEqual(expect.arrayContaining(expected.get(tenant.tenantId)!));
      await expectVerified(a.store, tenant.tenantId);
    }
    clock.advance(LEASE_MS + 1);
    expect((await Promise.all([b.follower.followOnce(), c.follower.followOnce()])).map((p) => p.owed)).toEqual([0, 0]);
  }, 60_000);

  it('one follower settles the registry’s and the anomalies’ owed records in one pass', async () => {
    const tenant = newTenant();
    const a = await startProcess({ audit: (r) => auditFailing(r, STATUS_CHANGED) });
    const [anomaly] = await seed(a.store, tenant.tenantId);
    expect((await a.call(tenant, 'ADMIN', 'PATCH', `/api/v1/audit/anomalies/${anomaly!.id}/status`, { status: 'RESOLVED' })).status).toBe(500);
    // A deploy stored owing its record, whose process stopped before writing it.
    const version = {
      policyModule: 'acme.rates',
      version: 1,
      source: 'Module acme.rates.',
      locale: 'en-US',
      sourceHash: '0'.repeat(64),
      functions: [],
      actorId: 'alice',
      createdAt: clock.now().toISOString(),
    };
    const recordId = deployedRecordId(tenant.tenantId, 'acme.rates', 1);
    await a.store.policies.insertVersion(tenant.tenantId, version, { recordId, claim: { owner: 'gone', until: clock.now().toISOString() } });

    clock.advance(LEASE_MS + 1);
    const b = await startProcess();
    expect(await b.follower.followOnce()).toEqual({ owed: 2, written: 2, found: 0, skipped: 0, failed: 0 });
    const chain = await chainOf(a.store, tenant.tenantId);
    expect(chain.map((r) => r.eventType).sort()).toEqual(['ANOMALY_DETECTED', STATUS_CHANGED, 'POLICY_DEPLOYED'].sort());
    expect(chain.find((r) => r.eventType === 'POLICY_DEPLOYED')).toMatchObject({ id: recordId, payload: { versionId: 'acme.rates@1', activated: false } });
    await expectVerified(a.store, tenant.tenantId);
  });
}

describe('anomaly status changes as an audit outbox on SQLite', () => {
  runOutboxSuite(sqliteTarget);
});

describeWithMongo('anomaly status changes as an audit outbox on MongoDB', (url) => {
  runOutboxSuite(() => mongoTarget(url));
});
