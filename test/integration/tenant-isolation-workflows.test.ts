// One tenant's workflows cost only that tenant: over real HTTP (real Redis, BullMQ `workflow-run`
// and `policy-evaluate`, worker threads, SQLite), an attacker starts many of the longest workflows
// the language allows while a bystander starts a short one and sends ordinary evaluations; then
// each bound on stored work is pushed past and refused with its own code. Threads load
// dist/workers/evaluation-thread.js: `npx tsc -p tsconfig.json` first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyClient } from '../../clients/typescript/src/index.js';
import { startWorkflowsHarness, type TenantInfo, type WorkflowsHarness } from './workflows-support/workflows-harness.js';

const ENDED = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** A module whose workflow `long` has `steps` steps, each calling `ok`. */
const longModule = (name: string, steps: number) =>
  [
    `Module ${name}.`,
    '',
    'Rule ok given n as Int, produce Bool:',
    '  Return n is at least 0.',
    '',
    'Workflow long given n as Int:',
    ...Array.from({ length: steps }, (_, i) => `  Step s${i + 1}: ok(n).`),
    '',
  ].join('\n');

const SHORT = `Module bystander.short.

Rule ok given n as Int, produce Bool:
  Return n is at least 0.

Workflow short given n as Int:
  Step one: ok(n).
  Step two: ok(n).
`;

const PRICING = `Module bystander.pricing.

Rule price given amount as Int, produce Int:
  Return amount times 2.
`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface State {
  status: string;
  finalResult: boolean | null;
}

interface Event {
  sequence: number;
  eventType: string;
}

/**
 * The bystander's ordinary evaluations, one every 0.2 s until `stop` resolves: each answer with its
 * status, result and how long it took.
 */
async function ordinaryEvaluations(client: PolicyClient, stop: Promise<unknown>): Promise<Array<{ status: number; result: unknown; ms: number }>> {
  let stopped = false;
  void stop.finally(() => (stopped = true));
  const answers: Array<{ status: number; result: unknown; ms: number }> = [];
  for (let i = 0; !stopped; i += 1) {
    const sent = performance.now();
    const answer = await client.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: i }, locale: 'en-US' });
    answers.push({ status: answer.status, result: answer.ok ? answer.result === i * 2 : answer.error, ms: performance.now() - sent });
    await pause(200);
  }
  return answers;
}

describe('workflows: one tenant’s many long workflows do not hold up another’s', () => {
  let h: WorkflowsHarness;
  let attacker: TenantInfo;
  let bystander: TenantInfo;
  const start = async (tenant: TenantInfo, policyModule: string, workflow: string, context: Record<string, unknown>) => {
    const answer = await h.call<{ workflowId: string }>(tenant, 'MEMBER', 'POST', '/api/v1/workflows', { policyModule, workflow, context });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body.workflowId;
  };
  const state = async (tenant: TenantInfo, id: string) => (await h.call<State>(tenant, 'MEMBER', 'GET', `/api/v1/workflows/${id}`)).body;
  /** Polls every 20 ms until the workflow has ended or `limitMs` passed; its state and the time taken. */
  const ended = async (tenant: TenantInfo, id: string, limitMs: number) => {
    const began = performance.now();
    for (;;) {
      const now = await state(tenant, id);
      if (ENDED.includes(now.status) || performance.now() - began > limitMs) return { state: now, ms: performance.now() - began };
      await pause(20);
    }
  };

  beforeAll(async () => {
    h = await startWorkflowsHarness({ minuteMs: 100 });
    attacker = h.policies.tenants.a;
    bystander = h.policies.tenants.b;
    await h.deploy(attacker, longModule('attacker.long', 2000));
    await h.deploy(bystander, SHORT);
    await h.deploy(bystander, longModule('bystander.long', 1200));
  }, 60_000);

  afterAll(async () => {
    await h?.close();
  });

  it('finishes each of the bystander’s 2-step workflows within 10 s while the attacker runs 40 workflows of 2,000 steps, and answers its evaluations', async () => {
    const attack = await Promise.all(Array.from({ length: 40 }, (_, n) => start(attacker, 'attacker.long', 'long', { n })));
    // The attacker's workflows are under way before the bystander starts.
    for (let round = 0; round < 500; round += 1) {
      if ((await h.call<Event[]>(attacker, 'MEMBER', 'GET', `/api/v1/workflows/${attack[0]}/events`)).body.length > 20) break;
      await pause(20);
    }

    let bystanderDone!: () => void;
    const evaluations = ordinaryEvaluations(h.policies.signed(bystander, 'MEMBER'), new Promise<void>((resolve) => (bystanderDone = resolve)));
    // Alone one takes about 0.05 s; behind the attacker's workflows in one queue it waited over 60 s.
    const shorts: number[] = [];
    for (let n = 0; n < 5; n += 1) {
      const short = await ended(bystander, await start(bystander, 'bystander.short', 'short', { n }), 10_000);
      expect(short.state).toMatchObject({ status: 'COMPLETED', finalResult: true });
      shorts.push(Math.round(short.ms));
      await pause(300);
    }
    bystanderDone();
    expect(Math.max(...shorts)).toBeLessThan(10_000);
    // Every ordinary evaluation answered, right, each within 5 s (about 10 ms alone).
    const answers = await evaluations;
    expect(answers.length).toBeGreaterThan(3);
    expect(answers.filter((a) => a.status !== 200 || a.result !== true)).toEqual([]);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(5000);

    // The attacker's workflows went on all along: none was refused or failed, and they advanced.
    const progress = await Promise.all(attack.map((id) => state(attacker, id)));
    expect(progress.filter((s) => s.status !== 'RUNNING' && s.status !== 'COMPLETED')).toEqual([]);
    const attackerEvents = (await Promise.all(attack.map(async (id) => (await h.call<Event[]>(attacker, 'MEMBER', 'GET', `/api/v1/workflows/${id}/events`)).body.length))).reduce((a, b) => a + b, 0);
    expect(attackerEvents).toBeGreaterThan(40 * 10);
    console.info(`bystander workflows: ${shorts.join(', ')} ms; ${answers.length} evaluations, slowest ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms; attacker events meanwhile: ${attackerEvents}`);

    for (const id of attack) expect([200, 409]).toContain((await h.call(attacker, 'MEMBER', 'POST', `/api/v1/workflows/${id}/cancel`)).status);
    for (const id of attack) expect(ENDED).toContain((await ended(attacker, id, 60_000)).state.status);
  }, 120_000);

  it('completes a workflow of 1,200 steps, one event per step without a gap, read in pages of at most 1,000 events', async () => {
    const id = await start(bystander, 'bystander.long', 'long', { n: 1 });
    const done = await ended(bystander, id, 100_000);
    expect(done.state).toMatchObject({ status: 'COMPLETED', finalResult: true });
    // Each read is a page (some 50 KB for one rate-limit point): asked again from the last sequence + 1 until `[]`.
    const pages: Event[][] = [];
    for (let fromSeq = 0; ; fromSeq = pages.at(-1)!.at(-1)!.sequence + 1) {
      const page = (await h.call<Event[]>(bystander, 'MEMBER', 'GET', `/api/v1/workflows/${id}/events?fromSeq=${fromSeq}`)).body;
      if (page.length === 0) break;
      pages.push(page);
    }
    expect(pages.map((page) => page.length)).toEqual([1_000, 202]);
    const events = pages.flat();
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.eventType === 'POLICY_EVALUATED')).toHaveLength(1200);
    expect(events.at(-1)!.eventType).toBe('WORKFLOW_COMPLETED');
  }, 120_000);

  it('is still alive and answers both tenants', async () => {
    expect((await fetch(`${h.policies.baseUrl}/healthz`)).status).toBe(200);
    const id = await start(attacker, 'attacker.long', 'long', { n: -1 });
    // `ok` answers false at once for a negative n: the workflow completes with false after one step.
    expect((await ended(attacker, id, 10_000)).state).toMatchObject({ status: 'COMPLETED', finalResult: false });
    expect((await ended(bystander, await start(bystander, 'bystander.short', 'short', { n: 2 }), 10_000)).state.status).toBe('COMPLETED');
  });
});

describe('workflows: every bound on a tenant’s stored work is refused with its own code', () => {
  const QUOTAS = { contextMaxBytes: 16 * 1024, maxUnfinished: 3, maxStoredBytes: 64 * 1024 };
  let h: WorkflowsHarness;
  let attacker: TenantInfo;
  let bystander: TenantInfo;
  const AWAITING = `Module quota.flows.

Rule ok given note as Text, produce Bool:
  Return length(note) is at least 0.

Workflow waits given note as Text:
  Step approve: Await "go".

Workflow quick given note as Text:
  Step check: ok(note).
`;
  const startAnswer = (tenant: TenantInfo, workflow: string, note: string) =>
    h.call<{ workflowId: string; code?: string; error?: string; result?: null }>(tenant, 'MEMBER', 'POST', '/api/v1/workflows', { policyModule: 'quota.flows', workflow, context: { note } });
  const deployAnswer = (tenant: TenantInfo, source: string) =>
    h.call<{ code: string; diagnostics: Array<{ code: string; message: string; help?: string }> }>(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source });
  const untilEnded = async (tenant: TenantInfo, id: string) =>
    h.until(tenant, id, (s) => ENDED.includes(s.status as string));

  beforeAll(async () => {
    h = await startWorkflowsHarness({ minuteMs: 100, quotas: QUOTAS });
    attacker = h.policies.tenants.a;
    bystander = h.policies.tenants.b;
    await h.deploy(attacker, AWAITING);
    await h.deploy(bystander, AWAITING);
  }, 60_000);

  afterAll(async () => {
    await h?.close();
  });

  it('refuses a workflow of more than 2,000 steps and a time limit past 365 days when the module is deployed (PL4009, PL4008)', async () => {
    const long = await deployAnswer(attacker, longModule('attacker.toolong', 2001));
    expect([long.status, long.body.code]).toEqual([400, 'ERR_POLICY_COMPILE']);
    expect(long.body.diagnostics.map((d) => d.code)).toEqual(['PL4009']);
    expect(long.body.diagnostics[0]!.message).toContain('at most 2000');

    const forever = await deployAnswer(attacker, 'Module attacker.forever.\n\nRule ok given n as Int, produce Bool:\n  Return true.\n\nWorkflow w given n as Int:\n  Step a: Await "go" within 99999999 days.\n');
    expect([forever.status, forever.body.code]).toEqual([400, 'ERR_POLICY_COMPILE']);
    expect(forever.body.diagnostics.map((d) => [d.code, d.message])).toEqual([['PL4008', 'the time limit of an awaited signal is at most 365 days (525600 minutes), not 99999999 days']]);
    expect(forever.body.diagnostics[0]!.help).toContain('leave out `within`');
  });

  it('refuses a context larger than WORKFLOW_CONTEXT_MAX_BYTES with 413, storing nothing', async () => {
    const before = await h.store.workflows.usage(attacker.tenantId);
    const refused = await startAnswer(attacker, 'quick', 'x'.repeat(QUOTAS.contextMaxBytes));
    expect([refused.status, refused.body.code, refused.body.result]).toEqual([413, 'ERR_WORKFLOW_CONTEXT_TOO_LARGE', null]);
    expect(refused.body.error).toContain('WORKFLOW_CONTEXT_MAX_BYTES');
    expect(await h.store.workflows.usage(attacker.tenantId)).toEqual(before);
    const fits = await startAnswer(attacker, 'quick', 'x'.repeat(QUOTAS.contextMaxBytes - 20));
    expect(fits.status).toBe(201);
    await untilEnded(attacker, fits.body.workflowId);
    // Its finish is a write after its last event: counted a moment later.
    await expect.poll(async () => (await h.store.workflows.usage(attacker.tenantId)).unfinished, { timeout: 10_000 }).toBe(0);
  });

  it('refuses a start past WORKFLOW_TENANT_MAX_UNFINISHED with 409 until one ends; the other tenant starts meanwhile', async () => {
    const waiting: string[] = [];
    for (let i = 0; i < QUOTAS.maxUnfinished; i += 1) {
      const started = await startAnswer(attacker, 'waits', `w${i}`);
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      waiting.push(started.body.workflowId);
    }
    const refused = await startAnswer(attacker, 'waits', 'one more');
    expect([refused.status, refused.body.code]).toEqual([409, 'ERR_WORKFLOW_UNFINISHED_LIMIT']);
    expect(refused.body.error).toContain('WORKFLOW_TENANT_MAX_UNFINISHED');
    expect((await h.store.workflows.usage(attacker.tenantId)).unfinished).toBe(QUOTAS.maxUnfinished);

    // The bystander's quota is its own.
    const other = await startAnswer(bystander, 'waits', 'mine');
    expect(other.status).toBe(201);
    expect((await h.call(bystander, 'MEMBER', 'POST', `/api/v1/workflows/${other.body.workflowId}/cancel`)).status).toBe(200);

    // Once one has ended, a start fits again.
    expect((await h.call(attacker, 'MEMBER', 'POST', `/api/v1/workflows/${waiting[0]}/cancel`)).status).toBe(200);
    await untilEnded(attacker, waiting[0]!);
    await expect.poll(async () => (await h.store.workflows.usage(attacker.tenantId)).unfinished, { timeout: 10_000 }).toBe(QUOTAS.maxUnfinished - 1);
    expect((await startAnswer(attacker, 'waits', 'fits again')).status).toBe(201);
    for (const id of waiting.slice(1)) await h.call(attacker, 'MEMBER', 'POST', `/api/v1/workflows/${id}/cancel`);
  });

  it('refuses a start past WORKFLOW_TENANT_MAX_STORED_BYTES with 409, counting finished workflows too; the other tenant starts meanwhile', async () => {
    const note = 'x'.repeat(12 * 1024);
    let refused: Awaited<ReturnType<typeof startAnswer>> | undefined;
    for (let i = 0; i < 20 && refused === undefined; i += 1) {
      const answer = await startAnswer(bystander, 'quick', note);
      if (answer.status === 201) await untilEnded(bystander, answer.body.workflowId);
      else refused = answer;
    }
    expect([refused?.status, refused?.body.code]).toEqual([409, 'ERR_WORKFLOW_STORAGE_LIMIT']);
    expect(refused!.body.error).toContain('WORKFLOW_TENANT_MAX_STORED_BYTES');
    // Refused because this context would not fit, and nothing of it was stored: a small one still fits.
    const usage = await h.store.workflows.usage(bystander.tenantId);
    expect(usage.storedBytes + JSON.stringify({ note }).length).toBeGreaterThan(QUOTAS.maxStoredBytes);
    expect((await startAnswer(bystander, 'quick', 'x'.repeat(100))).status).toBe(201);
    expect((await h.store.workflows.usage(bystander.tenantId)).storedBytes).toBeGreaterThan(usage.storedBytes);
    // The attacker's bytes are another count.
    expect((await startAnswer(attacker, 'quick', 'small')).status).toBe(201);
    expect((await fetch(`${h.policies.baseUrl}/healthz`)).status).toBe(200);
  });
});
