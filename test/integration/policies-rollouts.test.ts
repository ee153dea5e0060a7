// Rollouts over real HTTP, Redis, BullMQ and SQLite: a shadow version answers nobody while copies
// of the stable version's evaluations run on it and are compared; a canary answers its share,
// sticky by a context value; promote and abort end them, recorded in the audit chain; one rollout
// per module at a time; roles decide who may make a version answer; another tenant sees nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, startPoliciesHarness, type PoliciesHarness, type TenantInfo } from './policies-support/policies-harness.js';

const module = (name: string, rate: string, extra = '') => `Module ${name}.

Define Applicant has id as Text, amount as Int.

Rule price given applicant as Applicant, produce Int:
${extra}  Return applicant.amount times ${rate}.
`;

const FAILS_ABOVE_10 = `  If applicant.amount is greater than 10:
    Fail with "too large".
`;

interface Answer {
  version: number;
  result: unknown;
  success?: boolean;
  error?: string;
}

interface RolloutBody {
  rollout: number;
  version: number;
  stableVersion: number;
  mode: string;
  percent: number;
  stickyKey: string | null;
  status: string;
  reason: string | null;
  startedBy: string;
  endedBy: string | null;
  shadow: {
    counts: { compared: number; agreed: number; disagreed: number; errors: number; skipped: number };
    disagreements: Array<{ policyFunction: string; stable: unknown; shadow: unknown; contextHash: string; context?: unknown }>;
  } | null;
  versions: Array<{ version: number; role: string; evaluations: number; failures: number }>;
}

let h: PoliciesHarness;

beforeAll(async () => {
  h = await startPoliciesHarness();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const admin = (tenant: TenantInfo = h.tenants.a) => h.signed(tenant, 'ADMIN');
const member = (tenant: TenantInfo = h.tenants.a) => h.signed(tenant, 'MEMBER');

async function deploy(source: string, rollout?: Record<string, unknown>, as = admin()) {
  return as.request<{ version: number; rollout: unknown }>('POST', '/api/v1/policies', { source, ...(rollout ? { rollout } : {}) });
}

async function evaluate(policyModule: string, applicant: { id: string; amount: number }, version?: number, tenant?: TenantInfo) {
  const response = await member(tenant).request<Answer>('POST', '/api/v1/policies/evaluate', {
    policyModule,
    policyFunction: 'price',
    context: { applicant },
    ...(version !== undefined ? { version } : {}),
  });
  return response.body;
}

/** The rollout after every shadow copy so far is compared and counted. */
async function rolloutOf(policyModule: string, tenant: TenantInfo = h.tenants.a): Promise<RolloutBody> {
  await h.stack.evaluation.flush();
  await h.rolloutTally.flush();
  return (await h.signed(tenant, 'MEMBER').request<RolloutBody>('GET', `/api/v1/policies/${policyModule}/rollout`)).body;
}

describe('shadow rollouts', () => {
  it('answer with the stable version while copies run on the shadow one and are compared', async () => {
    await deploy(module('acme.shadowed', '2'));
    // MEMBER may start a shadow: it changes no answer.
    const started = await deploy(module('acme.shadowed', '2', FAILS_ABOVE_10), { mode: 'shadow' }, member());
    expect(started.status).toBe(201);
    expect(started.body.rollout).toEqual({ mode: 'shadow', percent: 100, stickyKey: null, captureContexts: false, stableVersion: 1 });

    const answers = [];
    for (let i = 0; i < 12; i += 1) answers.push(await evaluate('acme.shadowed', { id: `c${i}`, amount: i }));
    expect(answers.map((a) => a.version)).toEqual(new Array(12).fill(1));
    expect(answers.map((a) => a.result)).toEqual(Array.from({ length: 12 }, (_, i) => i * 2));

    const view = await rolloutOf('acme.shadowed');
    expect(view).toMatchObject({ rollout: 2, version: 2, stableVersion: 1, mode: 'shadow', status: 'RUNNING' });
    // 0-10 agree; 11 fails on the shadow only: an error, not a disagreement.
    expect(view.shadow!.counts).toEqual({ compared: 12, agreed: 11, disagreed: 0, errors: 1, skipped: 0 });
    const [sample] = view.shadow!.disagreements;
    expect(sample).toMatchObject({ policyFunction: 'price', stable: { ok: true, value: 22 }, shadow: { ok: false } });
    expect(sample!.contextHash).toMatch(/^[0-9a-f]{64}$/);
    expect(sample).not.toHaveProperty('context');
    // The shadow's evaluations count in its rollups (the detectors and the guard read them).
    expect(view.versions).toEqual([
      expect.objectContaining({ version: 1, role: 'stable', evaluations: 12, failures: 0 }),
      expect.objectContaining({ version: 2, role: 'rollout', evaluations: 12, failures: 1 }),
    ]);
  });

  it('keep the contexts of disagreements only when asked, and copy only the share asked', async () => {
    await deploy(module('acme.captured', '2'));
    await deploy(module('acme.captured', '3'), { mode: 'shadow', captureContexts: true });
    await evaluate('acme.captured', { id: 'k1', amount: 5 });
    const view = await rolloutOf('acme.captured');
    expect(view.shadow!.counts).toMatchObject({ compared: 1, disagreed: 1 });
    const asAdmin = (await admin().request<RolloutBody>('GET', '/api/v1/policies/acme.captured/rollout')).body;
    expect(asAdmin.shadow!.disagreements[0]).toMatchObject({ stable: { ok: true, value: 10 }, shadow: { ok: true, value: 15 }, context: { applicant: { id: 'k1', amount: 5 } } });
    // A MEMBER reads the results and the hash, not other callers' contexts.
    expect(view.shadow!.disagreements[0]).toEqual({ ...asAdmin.shadow!.disagreements[0], context: undefined });
    expect(view.shadow!.disagreements[0]).not.toHaveProperty('context');
    // A VIEWER reads the counts, and when and in which rule copies disagreed: not the callers' data.
    const asViewer = (await h.signed(h.tenants.a, 'VIEWER').request<RolloutBody>('GET', '/api/v1/policies/acme.captured/rollout')).body;
    expect(asViewer.shadow!.counts).toEqual(view.shadow!.counts);
    expect(asViewer.shadow!.disagreements).toEqual([{ at: expect.any(String), policyFunction: 'price' }]);

    await deploy(module('acme.sampled', '2'));
    await deploy(module('acme.sampled', '2'), { mode: 'shadow', percent: 1 });
    for (let i = 0; i < 40; i += 1) await evaluate('acme.sampled', { id: `s${i}`, amount: i });
    const sampled = await rolloutOf('acme.sampled');
    // 1 % of 40: a handful at most (the chance of more than 5 is below one in a hundred thousand).
    expect(sampled.shadow!.counts.compared).toBeLessThanOrEqual(5);
  });
});

describe('canary rollouts', () => {
  it('answer their share, the same version for the same sticky value, and a pinned version wins', async () => {
    await deploy(module('acme.canaried', '2'));
    const started = await deploy(module('acme.canaried', '3'), { mode: 'canary', percent: 50, stickyKey: 'applicant.id' });
    expect(started.body.rollout).toMatchObject({ mode: 'canary', percent: 50, stickyKey: 'applicant.id', stableVersion: 1 });
    const first = new Map<string, number>();
    for (let i = 0; i < 40; i += 1) first.set(`u${i}`, (await evaluate('acme.canaried', { id: `u${i}`, amount: 1 })).version);
    for (let i = 0; i < 40; i += 1) {
      const again = await evaluate('acme.canaried', { id: `u${i}`, amount: 7 });
      expect(again.version).toBe(first.get(`u${i}`));
      expect(again.result).toBe(again.version === 2 ? 21 : 14);
    }
    const versions = [...first.values()];
    // Both versions answer some of 40 values (each side empty with a chance of 2 in a trillion).
    expect(versions).toContain(1);
    expect(versions).toContain(2);
    for (let i = 0; i < 5; i += 1) expect((await evaluate('acme.canaried', { id: `u${i}`, amount: 1 }, 1)).version).toBe(1);
    // A sticky value without a canonical form (a lone surrogate) sticks to nothing: the stable version answers.
    expect(await evaluate('acme.canaried', { id: 'u\ud800', amount: 1 })).toMatchObject({ version: 1, result: 2 });
    const view = await rolloutOf('acme.canaried');
    expect(view.shadow).toBeNull();
    expect(view.versions.reduce((sum, v) => sum + v.evaluations, 0)).toBe(86);
  });

  it('are promoted: the new version answers everything, and the chain records the start and the promotion', async () => {
    await deploy(module('acme.promoted', '2'));
    await deploy(module('acme.promoted', '3'), { mode: 'canary', percent: 10 });
    const promoted = await admin().request<RolloutBody>('POST', '/api/v1/policies/acme.promoted/rollout/promote', { reason: 'looks good' });
    expect(promoted.body).toMatchObject({ status: 'PROMOTED', reason: 'looks good', version: 2, stableVersion: 1 });
    for (let i = 0; i < 10; i += 1) expect((await evaluate('acme.promoted', { id: `p${i}`, amount: 1 })).version).toBe(2);
    const started = (await h.auditOfType(h.tenants.a, 'POLICY_ROLLOUT_STARTED')).filter((r) => r.policyModule === 'acme.promoted');
    const ended = (await h.auditOfType(h.tenants.a, 'POLICY_ROLLOUT_PROMOTED')).filter((r) => r.policyModule === 'acme.promoted');
    expect(started.map((r) => r.payload)).toEqual([
      expect.objectContaining({ version: 2, stableVersion: 1, mode: 'canary', percent: 10, reason: null, anomalyId: null }),
    ]);
    expect(ended.map((r) => r.payload)).toEqual([expect.objectContaining({ version: 2, stableVersion: 1, reason: 'looks good' })]);
    expect(await failure(admin().request('POST', '/api/v1/policies/acme.promoted/rollout/promote', {}))).toMatchObject({
      status: 409,
      code: 'ERR_POLICY_ROLLOUT_NOT_RUNNING',
    });
  });

  it('are aborted: the stable version answers everything again at once', async () => {
    await deploy(module('acme.aborted', '2'));
    await deploy(module('acme.aborted', '3'), { mode: 'canary', percent: 100 });
    expect((await evaluate('acme.aborted', { id: 'a', amount: 1 })).version).toBe(2);
    expect(await failure(admin().request('POST', '/api/v1/policies/acme.aborted/rollout/abort', { reason: 'half \ud800' }))).toMatchObject({
      status: 400,
      code: 'ERR_POLICY_REQUEST_INVALID',
    });
    expect((await rolloutOf('acme.aborted')).status).toBe('RUNNING');
    // Through the client's own methods.
    const aborted = await admin().endRollout('acme.aborted', 'abort');
    expect(aborted).toMatchObject({ status: 'ABORTED', reason: 'aborted', endedBy: expect.any(String) });
    expect(await h.signed(h.tenants.a, 'VIEWER').getRollout('acme.aborted')).toEqual(aborted);
    for (let i = 0; i < 5; i += 1) expect((await evaluate('acme.aborted', { id: `a${i}`, amount: 1 })).version).toBe(1);
    const records = (await h.auditOfType(h.tenants.a, 'POLICY_ROLLOUT_ABORTED')).filter((r) => r.policyModule === 'acme.aborted');
    expect(records.map((r) => r.payload)).toEqual([expect.objectContaining({ version: 2, stableVersion: 1, reason: 'aborted' })]);
    // A new rollout may start once the last one ended.
    expect((await deploy(module('acme.aborted', '4'), { mode: 'shadow' })).body.rollout).toMatchObject({ stableVersion: 1 });
    expect((await rolloutOf('acme.aborted'))).toMatchObject({ rollout: 4, version: 3, status: 'RUNNING' });
  });
});

describe('one rollout at a time, and who may do what', () => {
  it('refuses another rollout, a deploy or a rollback while one runs, storing nothing', async () => {
    await deploy(module('acme.busy', '2'));
    await deploy(module('acme.busy', '3'), { mode: 'shadow' });
    for (const attempt of [
      () => deploy(module('acme.busy', '4'), { mode: 'canary', percent: 5 }),
      () => deploy(module('acme.busy', '4')),
      () => admin().request('POST', '/api/v1/policies/acme.busy/rollback', { version: 1 }),
    ]) {
      expect(await failure(attempt())).toMatchObject({ status: 409, code: 'ERR_POLICY_ROLLOUT_IN_PROGRESS' });
    }
    const versions = await h.signed(h.tenants.a, 'VIEWER').request<{ totalElements: number }>('GET', '/api/v1/policies/acme.busy/versions');
    expect(versions.body.totalElements).toBe(2);
  });

  it('lets a MEMBER start only a shadow; an active deploy, a canary, promote and abort need ADMIN', async () => {
    await deploy(module('acme.roles', '2'));
    for (const attempt of [
      () => deploy(module('acme.roles', '3'), undefined, member()),
      () => deploy(module('acme.roles', '3'), { mode: 'active' }, member()),
      () => deploy(module('acme.roles', '3'), { mode: 'canary', percent: 5 }, member()),
    ]) {
      expect(await failure(attempt())).toMatchObject({ status: 403, code: 'ERR_AUTH_ROLE_INSUFFICIENT' });
    }
    expect(await failure(deploy(module('acme.roles', '3'), { mode: 'shadow', captureContexts: true }, member()))).toMatchObject({ status: 403 });
    await deploy(module('acme.roles', '3'), { mode: 'shadow' }, member());
    for (const step of ['promote', 'abort']) {
      expect(await failure(member().request('POST', `/api/v1/policies/acme.roles/rollout/${step}`, {}))).toMatchObject({ status: 403 });
    }
    expect((await rolloutOf('acme.roles')).status).toBe('RUNNING');
  });

  it('refuses malformed rollouts with 400 and a rollout of a module without an active version with 409', async () => {
    const bad = [
      { mode: 'canary' },
      { mode: 'canary', percent: 0 },
      { mode: 'canary', percent: 101 },
      { mode: 'canary', percent: 5, captureContexts: true },
      { mode: 'shadow', stickyKey: 'applicant.id' },
      { mode: 'active', percent: 5 },
      { mode: 'canary', percent: 5, stickyKey: 'a..b' },
      { mode: 'blue-green' },
      { mode: 'shadow', extra: 1 },
      { mode: 'canary', percent: 5, stickyKey: 'applicant.id\ud800' },
    ];
    for (const rollout of bad) {
      const refused = await failure(deploy(module('acme.malformed', '2'), rollout));
      expect(refused, JSON.stringify(rollout)).toMatchObject({ status: 400, code: 'ERR_POLICY_REQUEST_INVALID' });
    }
    expect(await failure(deploy(module('acme.first', '2'), { mode: 'shadow' }))).toMatchObject({
      status: 409,
      code: 'ERR_POLICY_ROLLOUT_NO_STABLE_VERSION',
    });
    expect(await failure(h.signed(h.tenants.a, 'VIEWER').request('GET', '/api/v1/policies/acme.first/rollout'))).toMatchObject({
      status: 404,
      code: 'ERR_POLICY_NOT_FOUND',
    });
    await deploy(module('acme.never', '2'));
    expect(await failure(h.signed(h.tenants.a, 'VIEWER').request('GET', '/api/v1/policies/acme.never/rollout'))).toMatchObject({
      status: 404,
      code: 'ERR_POLICY_ROLLOUT_NOT_FOUND',
    });
  });

  it('keeps a tenant\'s rollout to itself: another tenant neither sees it nor is routed by it', async () => {
    await deploy(module('acme.private', '2'));
    await deploy(module('acme.private', '3'), { mode: 'canary', percent: 100 });
    await deploy(module('acme.private', '5'), undefined, admin(h.tenants.b));
    expect(await failure(h.signed(h.tenants.b, 'VIEWER').request('GET', '/api/v1/policies/acme.private/rollout'))).toMatchObject({ status: 404 });
    expect(await failure(admin(h.tenants.b).request('POST', '/api/v1/policies/acme.private/rollout/abort', {}))).toMatchObject({ status: 409 });
    const bystander = await evaluate('acme.private', { id: 'b', amount: 1 }, undefined, h.tenants.b);
    expect(bystander).toMatchObject({ version: 1, result: 5 });
    expect((await evaluate('acme.private', { id: 'a', amount: 1 })).version).toBe(2);
  });
});
