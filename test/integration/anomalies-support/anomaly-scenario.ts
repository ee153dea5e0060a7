// The anomaly resource end to end, run on each store: three deployed policies misbehave in the three
// ways the detector knows (a 30 % failure rate, a client pinned to a superseded version, a cost
// that grows with the input); the scheduled job run by a real worker finds each, and they are
// listed, shown, verified (both outcomes), triaged and replayed with an Idempotency-Key over real HTTP.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DETECTION_SETTINGS, type AnomalyDetail, type AnomalyListItem, type AnomalyPageView } from '../../../src/anomalies/index.js';
import { idempotencyRequestHash } from '../../../src/api/index.js';
import type { AuditRecord } from '../../../src/audit/index.js';
import type { Store } from '../../../src/store/index.js';
import { startAnomaliesHarness, type AnomaliesHarness, type HttpAnswer } from './anomalies-harness.js';

const T0 = '2026-03-02T12:00:00.000Z';
const HOUR = 3_600_000;
const ANOMALIES = '/api/v1/audit/anomalies';

const CLAIMS = `Module acme.claims.

Rule assess given amount as Int, produce Int:
  If amount modulo 10 is less than 3:
    Fail with "amount rejected".
  Return amount times 2.
`;

const fees = (add: number) => `Module acme.fees.

Rule fee given amount as Int, produce Int:
  Return amount plus ${add}.
`;

const RISK = `Module acme.risk.

Rule score given xs as List of Int, produce Int:
  Let total be 0.
  For each a in xs:
    For each b in xs:
      Let total be total plus a times b.
  Return total.
`;

type Item = AnomalyListItem;
type Page = AnomalyPageView;
type Detail = AnomalyDetail & { lastVerification: { outcome: string; reason: string; metrics: Record<string, unknown> } | null };

export function anomalyScenario(name: string, openStore?: () => Promise<Store>): void {
  describe(name, () => {
    let h: AnomaliesHarness;
    const ids: Record<string, string> = {};
    const admin = <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer<T>> =>
      h.call<T>(h.policies.tenants.a, 'ADMIN', method, path, body, headers);
    const detail = async (id: string) => (await admin<Detail>('GET', `${ANOMALIES}/${id}`)).body;
    // Every record appended so far is linked before the chain is read.
    const auditOf = (eventType: string): Promise<AuditRecord[]> => h.policies.auditOfType(h.policies.tenants.a, eventType);

    beforeAll(async () => {
      // The scenario moves the clock hours and days on and expects its anomalies still OPEN for the
      // verification and triage it shows: the detector does not resolve them on its own here
      // (auto-resolution has its tests in anomaly-auto-resolve.test.ts).
      const detectionDefaults = { ...DEFAULT_DETECTION_SETTINGS, autoResolveMinutes: 0 };
      h = await startAnomaliesHarness({ startIso: T0, detectionDefaults, ...(openStore ? { openStore } : {}) });
    }, 60_000);

    afterAll(async () => {
      await h?.close();
    });

    it('finds a failing version, a pinned superseded version and a slowdown with the scheduled job', async () => {
      const a = h.policies.tenants.a;
      // A day before: the risk policy's baseline, on one-element lists.
      h.clock.set('2026-03-01T12:00:00.000Z');
      expect(await h.deploy(a, RISK)).toBe(1);
      for (let i = 0; i < 60; i += 1) expect(await h.evaluate(a, 'acme.risk', 'score', { xs: [i] })).toBeNull();
      // Three hours before: fees version 1 is superseded by version 2.
      h.clock.set('2026-03-02T09:00:00.000Z');
      await h.deploy(a, fees(1));
      await h.deploy(a, fees(2));
      h.clock.set(T0);
      await h.deploy(a, CLAIMS);
      let failures = 0;
      for (let amount = 0; amount < 100; amount += 1) if ((await h.evaluate(a, 'acme.claims', 'assess', { amount })) !== null) failures += 1;
      expect(failures).toBe(30);
      for (let i = 0; i < 60; i += 1) await h.evaluate(a, 'acme.fees', 'fee', { amount: i }, 1);
      for (let i = 0; i < 20; i += 1) await h.evaluate(a, 'acme.fees', 'fee', { amount: i });
      // Quadratic in the list: 300 elements are 90,000 steps of the inner loop against 1.
      const big = Array.from({ length: 300 }, (_, i) => i % 7);
      for (let i = 0; i < 60; i += 1) expect(await h.evaluate(a, 'acme.risk', 'score', { xs: big })).toBeNull();

      const run = await h.nextScheduledDetection();
      expect(run.failures).toEqual([]);
      const report = run.tenants.find((t) => t.tenantId === a.tenantId);
      expect(report?.windowEnd).toBe(T0);
      expect(report?.versions).toBe(4);
      expect(report?.buckets).toBeGreaterThanOrEqual(5);

      const page = (await admin<Page>('GET', ANOMALIES)).body;
      const debug = JSON.stringify({
        run,
        activations: await h.store.policies.listActivations(a.tenantId, 'acme.fees'),
        totals: await h.store.rollups.totals(a.tenantId, { from: '2026-03-02T11:00:00.000Z', to: T0 }),
      });
      expect(page.content.map((item) => item.type).sort(), debug).toEqual(['HIGH_FAILURE_RATE', 'PERFORMANCE_DEGRADATION', 'ZOMBIE_VERSION']);
      expect(page.totalElements).toBe(3);
      expect(page.page).toBe(0);
      expect(page.size).toBe(20);
      expect(page.totalPages).toBe(1);
      const byType = new Map(page.content.map((item) => [item.type, item]));
      expect(byType.get('HIGH_FAILURE_RATE')).toMatchObject({ policyModule: 'acme.claims', policyFunction: 'assess', versionId: 'acme.claims@1', status: 'OPEN', detectedAt: T0 });
      expect(byType.get('ZOMBIE_VERSION')).toMatchObject({ policyModule: 'acme.fees', policyFunction: 'fee', versionId: 'acme.fees@1', status: 'OPEN' });
      expect(byType.get('PERFORMANCE_DEGRADATION')).toMatchObject({ policyModule: 'acme.risk', policyFunction: 'score', versionId: 'acme.risk@1', status: 'OPEN' });
      for (const item of page.content) {
        ids[item.type] = item.id;
        expect(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']).toContain(item.severity);
        expect(item.summary).toContain(item.versionId);
      }

      const failing = await detail(ids.HIGH_FAILURE_RATE!);
      expect(failing.metrics).toMatchObject({ failureRate: 0.3, sampleSize: 100, baselineFailureRate: 0, windowEnd: T0 });
      expect(Date.parse(failing.metrics.windowStart as string)).toBe(Date.parse(T0) - HOUR);
      expect(failing.recommendedActions.length).toBeGreaterThan(0);
      const zombie = await detail(ids.ZOMBIE_VERSION!);
      expect(zombie.metrics).toMatchObject({ sampleSize: 60, shareOfTraffic: 0.75, activeVersion: 2, supersededSince: '2026-03-02T09:00:00.000Z' });
      expect(zombie.recommendedActions.join('\n')).toContain('version 1');
      const slow = await detail(ids.PERFORMANCE_DEGRADATION!);
      expect(slow.metrics.ratio as number).toBeGreaterThanOrEqual(1.5);
      expect(slow.metrics.pValue as number).toBeLessThan(0.01);
      expect(slow.metrics).toMatchObject({ sampleSize: 60, baselineSampleSize: 60 });

      const detected = await auditOf('ANOMALY_DETECTED');
      expect(detected.map((r) => r.payload.anomalyId).sort()).toEqual(Object.values(ids).sort());
    });

    it('lists by type, page and days, and keeps tenants apart', async () => {
      const typed = (await admin<Page>('GET', `${ANOMALIES}?type=ZOMBIE_VERSION`)).body;
      expect(typed.content.map((item) => item.id)).toEqual([ids.ZOMBIE_VERSION]);
      const paged = (await admin<Page>('GET', `${ANOMALIES}?page=1&size=2`)).body;
      expect(paged).toMatchObject({ totalElements: 3, totalPages: 2, page: 1, size: 2 });
      expect(paged.content).toHaveLength(1);
      for (const bad of ['page=-1', 'size=0', 'size=101', 'days=0', 'days=x', 'type=SLOW', 'page=1&page=2']) {
        const answer = await admin<{ error: string; code: string }>('GET', `${ANOMALIES}?${bad}`);
        expect(answer.status, bad).toBe(400);
        expect(answer.body.error).toContain(`\`${bad.split('=')[0]}\``);
      }
      // Three days on, a one-day window holds nothing; the default seven days still holds all.
      h.clock.advance(72 * HOUR);
      expect((await admin<Page>('GET', `${ANOMALIES}?days=1`)).body.totalElements).toBe(0);
      expect((await admin<Page>('GET', ANOMALIES)).body.totalElements).toBe(3);
      h.clock.set(T0);

      const b = h.policies.tenants.b;
      expect((await h.call<Page>(b, 'ADMIN', 'GET', ANOMALIES)).body.totalElements).toBe(0);
      expect((await h.call(b, 'ADMIN', 'GET', `${ANOMALIES}/${ids.ZOMBIE_VERSION}`)).status).toBe(404);
      expect((await h.call(b, 'ADMIN', 'PATCH', `${ANOMALIES}/${ids.ZOMBIE_VERSION}/status`, { status: 'DISMISSED' })).status).toBe(404);
      expect((await h.call(h.policies.tenants.a, 'MEMBER', 'GET', ANOMALIES)).status).toBe(403);
      expect((await admin('GET', `${ANOMALIES}/no-such-id`)).status).toBe(404);
    });

    it('updates the live anomaly on re-detection instead of opening another, and only when its numbers changed', async () => {
      h.clock.advance(60_000);
      const unchanged = await h.nextScheduledDetection();
      expect(unchanged.tenants.find((t) => t.tenantId === h.policies.tenants.a.tenantId)).toMatchObject({ opened: 0, updated: 0, unchanged: 3 });
      expect((await detail(ids.HIGH_FAILURE_RATE!)).lastSeenAt).toBe(T0);
      // One more failure changes the failing version's numbers: that anomaly is written (by whichever
      // round ran first after it), the others not.
      expect(await h.evaluate(h.policies.tenants.a, 'acme.claims', 'assess', { amount: 1 })).not.toBeNull();
      await h.nextScheduledDetection();
      expect((await admin<Page>('GET', ANOMALIES)).body.totalElements).toBe(3);
      const failing = await detail(ids.HIGH_FAILURE_RATE!);
      expect(failing.detectedAt).toBe(T0);
      expect(failing.lastSeenAt).toBe(new Date(Date.parse(T0) + 60_000).toISOString());
      expect(failing.metrics).toMatchObject({ sampleSize: 101, failures: 31 });
      expect((await detail(ids.ZOMBIE_VERSION!)).lastSeenAt).toBe(T0);
      expect((await auditOf('ANOMALY_DETECTED')).length).toBe(3);
      h.clock.set(T0);
    });

    it('verifies: VERIFYING at once, OPEN while the condition holds, RESOLVED once it clears or traffic stops', async () => {
      await h.workers.verifyWorker.pause();
      const started = await admin('POST', `${ANOMALIES}/${ids.HIGH_FAILURE_RATE}/actions/verify`);
      expect(started.status).toBe(202);
      expect(started.body).toBeNull();
      expect((await detail(ids.HIGH_FAILURE_RATE!)).status).toBe('VERIFYING');
      const busy = await admin<{ error: string }>('PATCH', `${ANOMALIES}/${ids.HIGH_FAILURE_RATE}/status`, { status: 'RESOLVED' });
      expect(busy.status).toBe(409);
      expect(busy.body.error).toContain('VERIFYING');
      expect((await admin('POST', `${ANOMALIES}/${ids.HIGH_FAILURE_RATE}/actions/verify`)).status).toBe(409);
      h.workers.verifyWorker.resume();
      const held = await h.settledDetail(h.policies.tenants.a, ids.HIGH_FAILURE_RATE!);
      expect(held.status).toBe('OPEN');
      expect(held.lastVerification).toMatchObject({ outcome: 'OPEN', reason: 'CONDITION_HOLDS' });

      // Two hours on, the claims policy only succeeds and fees@1 gets no traffic.
      h.clock.advance(2 * HOUR);
      for (let i = 0; i < 60; i += 1) expect(await h.evaluate(h.policies.tenants.a, 'acme.claims', 'assess', { amount: 10 * i + 5 })).toBeNull();
      expect((await admin('POST', `${ANOMALIES}/${ids.HIGH_FAILURE_RATE}/actions/verify`)).status).toBe(202);
      const cleared = await h.settledDetail(h.policies.tenants.a, ids.HIGH_FAILURE_RATE!);
      expect(cleared.status).toBe('RESOLVED');
      expect(cleared.lastVerification).toMatchObject({ outcome: 'RESOLVED', reason: 'CONDITION_CLEARED' });
      expect((cleared.lastVerification as { metrics: Record<string, unknown> }).metrics).toMatchObject({ failureRate: 0, sampleSize: 60 });
      expect((await admin('POST', `${ANOMALIES}/${ids.ZOMBIE_VERSION}/actions/verify`)).status).toBe(202);
      const quiet = await h.settledDetail(h.policies.tenants.a, ids.ZOMBIE_VERSION!);
      expect(quiet).toMatchObject({ status: 'RESOLVED', lastVerification: { outcome: 'RESOLVED', reason: 'NO_TRAFFIC' } });
      const notOpen = await admin<{ error: string }>('POST', `${ANOMALIES}/${ids.ZOMBIE_VERSION}/actions/verify`);
      expect(notOpen.status).toBe(409);
      expect(notOpen.body.error).toContain('RESOLVED');

      const changes = (await auditOf('ANOMALY_STATUS_CHANGED')).filter((r) => r.payload.anomalyId === ids.HIGH_FAILURE_RATE);
      expect(changes.map((r) => `${String(r.payload.from)}>${String(r.payload.to)}`)).toEqual(['OPEN>VERIFYING', 'VERIFYING>OPEN', 'OPEN>VERIFYING', 'VERIFYING>RESOLVED']);
      expect(changes[0]!.actorId).toBe(`admin-of-${h.policies.tenants.a.tenantId}`);
      expect(changes[1]!.payload.verification).toMatchObject({ reason: 'CONDITION_HOLDS' });
      // The clock stays two hours on: back at T0 the resolved anomalies would be found again as new ones.
    });

    it('triages by the transition rules: one of concurrent changes wins, the rest are 409 naming the state', async () => {
      const path = `${ANOMALIES}/${ids.PERFORMANCE_DEGRADATION}/status`;
      for (const [body, status] of [
        [{ status: 'VERIFYING' }, 400],
        [{ status: 'CLOSED' }, 400],
        [{ note: 'no status' }, 400],
        [{ status: 'DISMISSED', extra: 1 }, 400],
        [{ status: 'DISMISSED', note: 'x'.repeat(2001) }, 400],
        [{ status: 'OPEN' }, 409],
      ] as const) {
        expect((await admin('PATCH', path, body)).status, JSON.stringify(body).slice(0, 60)).toBe(status);
      }
      expect((await admin('PATCH', `${ANOMALIES}/nothing-here/status`, { status: 'DISMISSED' })).status).toBe(404);
      const racers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => admin<{ status: string; error: string }>('PATCH', path, { status: i % 2 === 0 ? 'DISMISSED' : 'RESOLVED', note: `racer ${i}` })),
      );
      const winners = racers.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      const final = winners[0]!.body.status;
      for (const loser of racers.filter((r) => r.status !== 200)) {
        expect(loser.status).toBe(409);
        expect(loser.body.error).toContain(`the anomaly is ${final}`);
      }
      const changes = (await auditOf('ANOMALY_STATUS_CHANGED')).filter((r) => r.payload.anomalyId === ids.PERFORMANCE_DEGRADATION);
      expect(changes).toHaveLength(1);
      expect(changes[0]!.payload).toMatchObject({ from: 'OPEN', to: final });
      const reopened = await admin<Detail>('PATCH', path, { status: 'OPEN', note: 'looking again' });
      expect(reopened.status).toBe(200);
      expect(reopened.body.status).toBe('OPEN');
      const malformed = await admin<{ code: string }>('PATCH', path, '{"status": ');
      expect(malformed.status).toBe(400);
      expect(malformed.body.code).toBe('ERR_REQUEST_JSON_MALFORMED');
    });

    it('replays a PATCH with the same Idempotency-Key for 24 hours, refuses another body (422) and a running key (409)', async () => {
      const id = ids.HIGH_FAILURE_RATE!; // RESOLVED; the clock is two hours after T0, where it stays cleared
      const key = randomUUID();
      const path = `${ANOMALIES}/${id}/status`;
      const first = await admin<Detail>('PATCH', path, { status: 'OPEN', note: 'reopened once' }, { 'Idempotency-Key': key });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const before = (await auditOf('ANOMALY_STATUS_CHANGED')).length;
      const again = await admin<Detail>('PATCH', path, { note: 'reopened once', status: 'OPEN' }, { 'Idempotency-Key': key });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await auditOf('ANOMALY_STATUS_CHANGED')).length).toBe(before);
      const other = await admin<{ code: string }>('PATCH', path, { status: 'DISMISSED' }, { 'Idempotency-Key': key });
      expect(other.status).toBe(422);
      expect(other.body.code).toBe('ERR_IDEMPOTENCY_KEY_REUSED');
      // Keys are per tenant: tenant b's request with the same key runs on its own (and finds nothing).
      expect((await h.call(h.policies.tenants.b, 'ADMIN', 'PATCH', path, { status: 'OPEN', note: 'reopened once' }, { 'Idempotency-Key': key })).status).toBe(404);

      // A key whose first request is still running.
      const running = randomUUID();
      const body = { status: 'DISMISSED' };
      await h.store.idempotency.putIfAbsent(
        h.policies.tenants.a.tenantId,
        {
          key: running,
          requestHash: idempotencyRequestHash('PATCH', path, body),
          owner: 'another-process',
          response: null,
          createdAt: h.clock.now().toISOString(),
          expiresAt: new Date(h.clock.now().getTime() + 60_000).toISOString(),
        },
        h.clock.now(),
      );
      const inFlight = await admin<{ code: string }>('PATCH', path, body, { 'Idempotency-Key': running });
      expect(inFlight.status).toBe(409);
      expect(inFlight.body.code).toBe('ERR_IDEMPOTENCY_REQUEST_IN_PROGRESS');
      expect((await admin('PATCH', path, body, { 'Idempotency-Key': 'has space' })).status).toBe(400);

      // A replayed 202 of a verification has no body either.
      const verifyKey = randomUUID();
      const verifyPath = `${ANOMALIES}/${id}/actions/verify`;
      expect((await admin('POST', verifyPath, undefined, { 'Idempotency-Key': verifyKey })).status).toBe(202);
      const replayed = await admin('POST', verifyPath, undefined, { 'Idempotency-Key': verifyKey });
      expect(replayed.status).toBe(202);
      expect(replayed.body).toBeNull();
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      await h.settledDetail(h.policies.tenants.a, id);

      // 24 hours on, the key is forgotten: the request runs again (and meets the current state).
      h.clock.advance(24 * HOUR + 1000);
      const late = await admin<Detail>('PATCH', path, { status: 'OPEN', note: 'reopened once' }, { 'Idempotency-Key': key });
      expect(late.status).toBe(200);
      expect(late.headers.get('idempotent-replayed')).toBeNull();
      expect(late.body.lastVerification).toMatchObject({ reason: 'CONDITION_CLEARED' });
      expect(late.body).not.toEqual(first.body);
    });

    it('keeps per-tenant detection settings, validated and audited', async () => {
      const path = '/api/v1/audit/anomaly-settings';
      const initial = await admin<{ effective: Record<string, number>; overrides: Record<string, number> }>('GET', path);
      expect(initial.body.effective.minSamples).toBe(50);
      expect(initial.body.overrides).toEqual({});
      const set = await admin<{ effective: Record<string, number> }>('PUT', path, { minSamples: 20, failureRateThreshold: 0.1 });
      expect(set.status).toBe(200);
      expect(set.body.effective).toMatchObject({ minSamples: 20, failureRateThreshold: 0.1, windowMinutes: 60 });
      for (const bad of [{ minSamples: 0 }, { minSamples: 1.5 }, { nonsense: 1 }, { failureRateThreshold: 2 }, []]) {
        expect((await admin('PUT', path, bad)).status, JSON.stringify(bad)).toBe(400);
      }
      expect((await admin<{ effective: Record<string, number> }>('GET', path)).body.effective.minSamples).toBe(20);
      expect((await h.call<{ effective: Record<string, number> }>(h.policies.tenants.b, 'ADMIN', 'GET', path)).body.effective.minSamples).toBe(50);
      expect((await auditOf('ANOMALY_SETTINGS_CHANGED')).at(-1)?.payload).toEqual({ overrides: { minSamples: 20, failureRateThreshold: 0.1 } });
      await admin('PUT', path, {});
    });
  });
}
