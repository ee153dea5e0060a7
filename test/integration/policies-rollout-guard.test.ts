// The rollout guard over real HTTP traffic, BullMQ workers, Redis and SQLite: a canary failing 30 %
// of its evaluations is aborted by the first round that sees enough of them, one as good as the
// stable version survives 10,000 evaluations with a round after every thousand, a rollout whose
// version has a live failure-rate anomaly is aborted, and the scheduled guard runs by itself.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAnomalySettings,
  createRolloutGuard,
  DEFAULT_DETECTION_SETTINGS,
  ROLLOUT_GUARD_ACTOR,
  startAnomalyWorkers,
  type AnomalyDetector,
  type AnomalyVerifier,
  type RolloutGuard,
} from '../../src/anomalies/index.js';
import { REDIS_URL, startPoliciesHarness, type PoliciesHarness, type TenantInfo } from './policies-support/policies-harness.js';

/** Fails for `failBelow` of every `modulo` evaluations `drive` sends (their amounts cycle 0 … modulo − 1). */
const source = (name: string, rate: string, failBelow: number, modulo: number) => `Module ${name}.

Rule price given amount as Int, produce Int:
  If amount is less than ${failBelow}:
    Fail with "refused".
  Return amount times ${rate} plus ${modulo}.
`;

const MODULO: Record<string, number> = { 'acme.aimed': 10, 'acme.flaky': 10, 'acme.steady': 20, 'acme.watched': 10, 'acme.scheduled': 10 };

interface RolloutBody {
  status: string;
  reason: string | null;
  anomalyId: string | null;
  endedBy: string | null;
  versions: Array<{ version: number; evaluations: number; failures: number }>;
}

let h: PoliciesHarness;
let guard: RolloutGuard;

beforeAll(async () => {
  h = await startPoliciesHarness();
  const settings = createAnomalySettings({ repository: h.store.anomalySettings, defaults: DEFAULT_DETECTION_SETTINGS, audit: h.stack.auditTrail.recorder });
  guard = createRolloutGuard({ store: h.store, settings, control: h.stack.rollouts, tally: h.rolloutTally });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const admin = (tenant: TenantInfo = h.tenants.a) => h.signed(tenant, 'ADMIN');

async function deploy(text: string, rollout?: Record<string, unknown>, tenant?: TenantInfo) {
  await admin(tenant).request('POST', '/api/v1/policies', { source: text, ...(rollout ? { rollout } : {}) });
}

/** `count` evaluations of the module's `price`, amounts cycling 0 … MODULO − 1, in batches of 100; rollups stored. */
async function drive(policyModule: string, count: number, tenant: TenantInfo = h.tenants.a, from = 0) {
  for (let start = 0; start < count; start += 100) {
    const items = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({ policyModule, policyFunction: 'price', context: { amount: (from + start + i) % MODULO[policyModule]! } }));
    await h.signed(tenant, 'MEMBER').request('POST', '/api/v1/policies/evaluate-source/batch', { items });
  }
  await h.stack.evaluation.flush();
  await h.rolloutTally.flush();
}

async function rolloutOf(policyModule: string, tenant: TenantInfo = h.tenants.a) {
  return (await h.signed(tenant, 'VIEWER').request<RolloutBody>('GET', `/api/v1/policies/${policyModule}/rollout`)).body;
}

describe('the rollout guard', () => {
  it('aborts a canary failing 30 % of its evaluations in the first round after enough of them, leaving another tenant\'s alone', async () => {
    await deploy(source('acme.flaky', '2', 0, 10));
    await deploy(source('acme.flaky', '3', 3, 10), { mode: 'canary', percent: 50 });
    // The bystander's canary is as good as its stable version.
    await deploy(source('acme.flaky', '2', 0, 10), undefined, h.tenants.b);
    await deploy(source('acme.flaky', '3', 0, 10), { mode: 'canary', percent: 50 }, h.tenants.b);
    await drive('acme.flaky', 60, h.tenants.b);
    // Too few canary evaluations yet (the tenant's minimum is 50): no verdict.
    await drive('acme.flaky', 40);
    expect((await guard.round()).aborted).toEqual([]);
    await drive('acme.flaky', 300, h.tenants.a, 40);
    const round = await guard.round();
    expect(round.aborted).toEqual([expect.objectContaining({ tenantId: h.tenants.a.tenantId, policyModule: 'acme.flaky', anomalyId: null })]);
    const view = await rolloutOf('acme.flaky');
    expect(view).toMatchObject({ status: 'ABORTED', endedBy: ROLLOUT_GUARD_ACTOR });
    expect(view.reason).toMatch(/^the canary is worse than the stable version: failure rate \d+\.\d % of \d+ evaluations, against 0\.0 %/);
    const canary = view.versions.find((v) => v.version === 2)!;
    // 3 of every 10 amounts fail on the canary; the random half it answered fails about as often.
    expect(canary.failures / canary.evaluations).toBeGreaterThan(0.15);
    expect(canary.failures / canary.evaluations).toBeLessThan(0.45);
    expect((await rolloutOf('acme.flaky', h.tenants.b)).status).toBe('RUNNING');
    const aborted = (await h.auditOfType(h.tenants.a, 'POLICY_ROLLOUT_ABORTED')).filter((r) => r.policyModule === 'acme.flaky');
    expect(aborted.map((r) => [r.actorId, r.payload.version])).toEqual([[ROLLOUT_GUARD_ACTOR, 2]]);
    // The stable version answers everything again.
    const after = await admin().request<{ version: number }>('POST', '/api/v1/policies/evaluate', { policyModule: 'acme.flaky', policyFunction: 'price', context: { amount: 1 } });
    expect(after.body.version).toBe(1);
  });

  it('does not abort a canary as good as the stable version over 10,000 evaluations', async () => {
    await deploy(source('acme.steady', '2', 1, 20));
    await deploy(source('acme.steady', '3', 1, 20), { mode: 'canary', percent: 50 });
    for (let thousand = 0; thousand < 10; thousand += 1) {
      await drive('acme.steady', 1000, h.tenants.a, thousand * 1000);
      expect((await guard.round()).aborted.filter((a) => a.policyModule === 'acme.steady')).toEqual([]);
    }
    const view = await rolloutOf('acme.steady');
    expect(view.status).toBe('RUNNING');
    const total = view.versions.reduce((sum, v) => sum + v.evaluations, 0);
    expect(total).toBe(10_000);
    // Both versions fail 5 % of the time; both got a fair share.
    for (const side of view.versions) expect(side.failures / side.evaluations).toBeCloseTo(0.05, 1);
  }, 120_000);

  it('compares only the answers the route chose: failures aimed at the canary by pinning it, or caused by the caller\'s context, abort nothing', async () => {
    await deploy(source('acme.aimed', '2', 0, 10));
    await deploy(source('acme.aimed', '3', 0, 10), { mode: 'canary', percent: 50 });
    const member = h.signed(h.tenants.a, 'MEMBER');
    // A MEMBER pins the canary with contexts that fail, and sends routed ones that do too.
    const pinned = Array.from({ length: 100 }, () => ({ policyModule: 'acme.aimed', policyFunction: 'price', version: 2, context: { nope: 1 } }));
    const misfit = Array.from({ length: 100 }, () => ({ policyModule: 'acme.aimed', policyFunction: 'price', context: { amount: 'not a number' } }));
    for (const items of [pinned, misfit]) await member.request('POST', '/api/v1/policies/evaluate-source/batch', { items });
    await drive('acme.aimed', 200);
    expect((await guard.round()).aborted.filter((a) => a.policyModule === 'acme.aimed')).toEqual([]);
    const view = (await h.signed(h.tenants.a, 'VIEWER').request<{ status: string; routed: { stable: { evaluations: number; failures: number }; rollout: { evaluations: number; failures: number } } }>('GET', '/api/v1/policies/acme.aimed/rollout')).body;
    expect(view.status).toBe('RUNNING');
    // The routed answers: the 200 good ones, split between the versions, none failed.
    expect(view.routed.stable.evaluations + view.routed.rollout.evaluations).toBe(200);
    expect(view.routed.stable.failures + view.routed.rollout.failures).toBe(0);
  });

  it('aborts a shadow whose version has a live failure-rate anomaly, naming the anomaly', async () => {
    await deploy(source('acme.watched', '2', 0, 10));
    await deploy(source('acme.watched', '3', 0, 10), { mode: 'shadow' });
    await drive('acme.watched', 10);
    const anomalyId = randomUUID();
    const at = new Date().toISOString();
    await h.store.anomalies.insert(h.tenants.a.tenantId, {
      id: anomalyId,
      type: 'HIGH_FAILURE_RATE',
      policyModule: 'acme.watched',
      policyFunction: 'price',
      version: 2,
      occurrence: 1,
      detectedAt: at,
      observation: { observedAt: at, severity: 'HIGH', summary: 'failure rate 40 %', metrics: {}, recommendedActions: [] },
      verification: null,
    });
    const round = await guard.round();
    expect(round.aborted).toEqual([expect.objectContaining({ policyModule: 'acme.watched', anomalyId })]);
    expect(await rolloutOf('acme.watched')).toMatchObject({ status: 'ABORTED', anomalyId });
  });

  it('runs by itself on its schedule, once per interval for the deployment', async () => {
    await deploy(source('acme.scheduled', '2', 0, 10));
    await deploy(source('acme.scheduled', '3', 5, 10), { mode: 'canary', percent: 50 });
    await drive('acme.scheduled', 400);
    const idle = { detectTenant: async () => ({}), tenantsToDetect: async () => [] } as unknown as AnomalyDetector;
    const workers = await startAnomalyWorkers({
      connection: REDIS_URL,
      prefix: `test-${randomUUID()}`,
      detector: idle,
      verifier: {} as AnomalyVerifier,
      detectEveryMs: 3_600_000,
      guard: { guard, everyMs: 500 },
    });
    try {
      let status = 'RUNNING';
      for (let waited = 0; status === 'RUNNING' && waited < 20_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await rolloutOf('acme.scheduled')).status;
      }
      expect(status).toBe('ABORTED');
    } finally {
      await workers.close();
    }
  }, 30_000);
});
