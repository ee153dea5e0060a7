// One effect per Idempotency-Key: an anomaly status change stored before the store went away (its
// audit record could not be written, so the request answers 503) keeps its key. A retry with that
// key never applies the change again, even after another client moved the anomaly back; once the
// store is back it replays the answer the change would have had. And should the key be freed all
// the same (the process stopped before writing the key's answer), the retry finds the change by
// the request's reference stored with it. Real HTTP, Redis and SQLite; the store "goes away" right
// after the change is stored, and the process "stops", by wrapping the repositories.
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createAnomalySettings,
  createAnomalyTriage,
  DEFAULT_DETECTION_SETTINGS,
  type AnomalyRepository,
  type StoredAnomaly,
  type VerificationRequest,
} from '../../src/anomalies/index.js';
import { createAnomalyRoutes, IDEMPOTENCY_LEASE_MS } from '../../src/api/index.js';
import { createAuditTrail, type AuditLinkRepository, type AuditTrail } from '../../src/audit/index.js';
import type { JwtKeyRing } from '../../src/auth/index.js';
import type { IdempotencyRepository } from '../../src/idempotency/index.js';
import type { Store } from '../../src/store/index.js';
import {
  connectRedis,
  createBearerCaller,
  createTestApp,
  listen,
  newKeyRing,
  removeRedisPrefix,
  seedAnomalies,
  sqliteTarget,
  type BearerCall,
  type HttpAnswer,
  type HttpListener,
  type StoreTarget,
} from '../support/index.js';

const IN_PROGRESS = 'ERR_IDEMPOTENCY_REQUEST_IN_PROGRESS';

/** What the store says while it is away (better-sqlite3's locked-database error): a 503. */
const unreachable = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

describe('an anomaly status change with an Idempotency-Key whose audit record fails', () => {
  let target: StoreTarget;
  let store: Store;
  let redis: Redis;
  let keyRing: JwtKeyRing;
  let trail: AuditTrail;
  let listener: HttpListener;
  let call: BearerCall;
  const prefix = `test-anomaly-idem-${Math.random().toString(36).slice(2, 10)}`;
  const tenant = { tenantId: 'acme' };
  /**
   * `stopAfterNextChange`: the store goes away once the next status change is stored;
   * `keyAnswersLost`: the key's answer (or release) is never written, as when the process stops first.
   */
  const fault = { away: false, stopAfterNextChange: false, keyAnswersLost: false };
  /** The app's clock runs this far ahead of the system's: a test moves it past a key's lease. */
  let skewMs = 0;
  const queued: VerificationRequest[] = [];
  let queueDown = false;

  beforeAll(async () => {
    redis = await connectRedis();
    keyRing = newKeyRing();
  });

  afterAll(async () => {
    redis.disconnect();
    await removeRedisPrefix(prefix);
  });

  beforeEach(async () => {
    Object.assign(fault, { away: false, stopAfterNextChange: false, keyAnswersLost: false });
    skewMs = 0;
    queued.length = 0;
    queueDown = false;
    target = sqliteTarget();
    store = await target.connect();
    const whileUp = <T>(write: () => Promise<T>) => (fault.away ? Promise.reject(unreachable()) : write());
    const anomalies: AnomalyRepository = {
      ...store.anomalies,
      async appendTransition(...args) {
        const stored = await whileUp(() => store.anomalies.appendTransition(...args));
        if (stored && fault.stopAfterNextChange) Object.assign(fault, { away: true, stopAfterNextChange: false });
        return stored;
      },
    };
    const links: AuditLinkRepository = { ...store.auditLinks, storeUnlinked: (...args) => whileUp(() => store.auditLinks.storeUnlinked(...args)) };
    const idempotency: IdempotencyRepository = {
      get: (...args) => whileUp(() => store.idempotency.get(...args)),
      putIfAbsent: (...args) => whileUp(() => store.idempotency.putIfAbsent(...args)),
      complete: (...args) => (fault.keyAnswersLost ? Promise.resolve(true) : whileUp(() => store.idempotency.complete(...args))),
      release: (...args) => (fault.keyAnswersLost ? Promise.resolve() : whileUp(() => store.idempotency.release(...args))),
    };
    trail = createAuditTrail(links);
    const triage = createAnomalyTriage({
      anomalies,
      audit: trail.recorder,
      enqueueVerification: async (request) => {
        if (queueDown) throw new Error('the queue is unreachable');
        queued.push(request);
      },
    });
    const settings = createAnomalySettings({ repository: store.anomalySettings, defaults: DEFAULT_DETECTION_SETTINGS, audit: trail.recorder });
    const app = createTestApp({ store: { ...store, idempotency }, redis, keyRing, prefix, routes: [createAnomalyRoutes({ triage, settings })], now: () => new Date(Date.now() + skewMs) });
    listener = await listen(app);
    call = createBearerCaller(listener.baseUrl, keyRing);
  });

  afterEach(async () => {
    await listener.close();
    await trail.close();
    await target.dispose();
  });

  const seed = async (): Promise<StoredAnomaly> =>
    (await seedAnomalies(store, tenant.tenantId, [{ type: 'HIGH_FAILURE_RATE', policyModule: 'acme.pricing', policyFunction: 'price', version: 1 }]))[0]!;

  /** The retry's first answer once its key is no longer held (the key's outcome is written once the store is back). */
  async function settled(send: () => Promise<HttpAnswer>): Promise<HttpAnswer> {
    let answer: HttpAnswer | undefined;
    const code = async () => {
      answer = await send();
      return (answer.body as { code?: string } | null)?.code;
    };
    await expect.poll(code, { timeout: 15_000, interval: 100 }).not.toBe(IN_PROGRESS);
    return answer!;
  }

  it('PATCH …/status: the retry replays the 200 and never applies the change again', async () => {
    const anomaly = await seed();
    const path = `/api/v1/audit/anomalies/${anomaly.id}/status`;
    const resolve = () => call(tenant, 'ADMIN', 'PATCH', path, { status: 'RESOLVED' }, { 'idempotency-key': 'resolve-1' });

    fault.stopAfterNextChange = true;
    const first = await resolve();
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ code: 'ERR_SERVICE_UNAVAILABLE' });
    expect((await store.anomalies.get(tenant.tenantId, anomaly.id))?.status).toBe('RESOLVED');

    // While the store is away the retry reads nothing and changes nothing.
    expect((await resolve()).status).toBe(503);

    // The store is back; another client reopens the anomaly with its own key.
    fault.away = false;
    const reopened = await call(tenant, 'ADMIN', 'PATCH', path, { status: 'OPEN' }, { 'idempotency-key': 'reopen-1' });
    expect(reopened.status).toBe(200);

    const retry = await settled(resolve);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toMatchObject({ id: anomaly.id, status: 'RESOLVED' });
    const transitions = await store.anomalies.transitions(tenant.tenantId, anomaly.id);
    expect(transitions.map((t) => t.to)).toEqual(['RESOLVED', 'OPEN']);
    expect((await store.anomalies.get(tenant.tenantId, anomaly.id))?.status).toBe('OPEN');
  });

  it('POST …/actions/verify: the retry replays the 202 and queues no second job', async () => {
    const anomaly = await seed();
    const verify = () => call(tenant, 'ADMIN', 'POST', `/api/v1/audit/anomalies/${anomaly.id}/actions/verify`, undefined, { 'idempotency-key': 'verify-1' });

    fault.stopAfterNextChange = true;
    const first = await verify();
    expect(first.status).toBe(503);
    expect(queued).toHaveLength(1);

    fault.away = false;
    const retry = await settled(verify);
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(queued).toHaveLength(1);
    expect((await store.anomalies.transitions(tenant.tenantId, anomaly.id)).map((t) => t.to)).toEqual(['VERIFYING']);
  });

  it('PATCH …/status whose key was freed before its answer was written: the retry finds the change and makes no second one', async () => {
    const anomaly = await seed();
    const path = `/api/v1/audit/anomalies/${anomaly.id}/status`;
    const resolve = () => call(tenant, 'ADMIN', 'PATCH', path, { status: 'RESOLVED', note: 'fixed' }, { 'idempotency-key': 'resolve-2' });

    fault.keyAnswersLost = true;
    await resolve();
    fault.keyAnswersLost = false;
    expect((await resolve()).body).toMatchObject({ code: IN_PROGRESS });

    // Another client reopens the anomaly; then the first request's lease ends and frees its key.
    expect((await call(tenant, 'ADMIN', 'PATCH', path, { status: 'OPEN' }, { 'idempotency-key': 'reopen-2' })).status).toBe(200);
    skewMs = IDEMPOTENCY_LEASE_MS + 1000;

    const retry = await resolve();
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ id: anomaly.id, status: 'RESOLVED' });
    expect((await store.anomalies.transitions(tenant.tenantId, anomaly.id)).map((t) => t.to)).toEqual(['RESOLVED', 'OPEN']);
    expect((await store.anomalies.get(tenant.tenantId, anomaly.id))?.status).toBe('OPEN');
    // Its answer is now the key's, replayed.
    expect((await resolve()).headers.get('idempotent-replayed')).toBe('true');

    // The same change by another key is a change of its own.
    expect((await call(tenant, 'ADMIN', 'PATCH', path, { status: 'RESOLVED', note: 'fixed' }, { 'idempotency-key': 'resolve-3' })).status).toBe(200);
    expect((await store.anomalies.transitions(tenant.tenantId, anomaly.id)).map((t) => t.to)).toEqual(['RESOLVED', 'OPEN', 'RESOLVED']);
  });

  it('POST …/actions/verify whose job could not be queued is undone: a retry with its key runs it again', async () => {
    const anomaly = await seed();
    const verify = () => call(tenant, 'ADMIN', 'POST', `/api/v1/audit/anomalies/${anomaly.id}/actions/verify`, undefined, { 'idempotency-key': 'verify-2' });
    queueDown = true;
    expect((await verify()).body).toMatchObject({ code: 'ERR_ANOMALY_VERIFICATION_UNAVAILABLE' });
    queueDown = false;
    expect((await verify()).status).toBe(202);
    expect(queued).toHaveLength(1);
    expect((await store.anomalies.transitions(tenant.tenantId, anomaly.id)).map((t) => t.to)).toEqual(['VERIFYING', 'OPEN', 'VERIFYING']);
  });
});
