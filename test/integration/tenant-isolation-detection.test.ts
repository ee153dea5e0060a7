// Anomaly detection and its settings cost one tenant only its own share. The attacker sets extreme
// but valid detection settings over HTTP and has 2,400 (version, rule) pairs evaluated once each and
// failing, seeded straight into its rollups; detection rounds (the job a scheduled round queues per
// tenant, on real Redis and BullMQ, in the process that answers HTTP, as in role `all`) then keep
// within the per-round budget, detect the bystander's anomaly in the same round, and reach every
// pair in later rounds. Meanwhile the bystander keeps sending ordinary requests: every one must
// answer 200 within BYSTANDER_BOUND_MS, a generous bound for a loaded 2-core machine (each is a few
// milliseconds alone). Threads load dist/workers/evaluation-thread.js: `npx tsc -p tsconfig.json` first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnomalyPageView, TenantDetection } from '../../src/anomalies/index.js';
import type { PolicyClient } from '../../clients/typescript/src/index.js';
import type { RollupIncrement } from '../../src/rollups/index.js';
import { startAnomaliesHarness, type AnomaliesHarness } from './anomalies-support/anomalies-harness.js';
import { failure } from './policies-support/policies-harness.js';

const T0 = '2026-03-02T12:00:00.000Z';
const FUNCTIONS = 40;
const VERSIONS = 60;
const PAIRS = FUNCTIONS * VERSIONS;
const BUDGET = { versionsPerRound: 1000, openedPerRound: 300 };
const BYSTANDER_BOUND_MS = 3000;
const ANOMALIES = '/api/v1/audit/anomalies';
const SETTINGS = '/api/v1/audit/anomaly-settings';

const PRICING = `Module tenantb.pricing.

Rule price given amount as Int, produce Int:
  Return amount times 2.
`;

const minuteBefore = (minutes: number) => new Date(Date.parse(T0) - minutes * 60_000).toISOString();

let h: AnomaliesHarness;
let bystanderClient: PolicyClient;

beforeAll(async () => {
  // Rounds start when the suite says so: the schedule's own first round finds no rollups yet.
  h = await startAnomaliesHarness({ startIso: T0, budget: BUDGET, detectEveryMs: 3_600_000 });
  bystanderClient = h.policies.signed(h.policies.tenants.b, 'MEMBER');
}, 60_000);

afterAll(async () => {
  await h?.close();
});

interface BystanderAnswer {
  what: string;
  status: number;
  ms: number;
}

/** Runs `work` while the bystander sends an anomaly list and an evaluation every 100 ms; checks every answer. */
async function whileBystanderWorks<T>(work: () => Promise<T>): Promise<T> {
  const answers: BystanderAnswer[] = [];
  let done = false;
  const bystander = (async () => {
    for (let i = 0; !done || i < 2; i += 1) {
      const started = performance.now();
      if (i % 2 === 0) {
        const answer = await h.call(h.policies.tenants.b, 'ADMIN', 'GET', `${ANOMALIES}?size=5`);
        answers.push({ what: 'list', status: answer.status, ms: performance.now() - started });
      } else {
        const answer = await bystanderClient.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: i }, locale: 'en-US' });
        answers.push({ what: 'evaluate', status: answer.ok && answer.result === i * 2 ? 200 : answer.status || 599, ms: performance.now() - started });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    return await work();
  } finally {
    done = true;
    await bystander;
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.filter((a) => a.ms > BYSTANDER_BOUND_MS).map((a) => `${a.what} ${Math.round(a.ms)} ms`)).toEqual([]);
  }
}

function attackerOf(run: { tenants: TenantDetection[] }): TenantDetection {
  const report = run.tenants.find((t) => t.tenantId === h.policies.tenants.a.tenantId);
  if (report === undefined) throw new Error(`no round for the attacker in ${JSON.stringify(run)}`);
  return report;
}

function bystanderOf(run: { tenants: TenantDetection[] }): TenantDetection | undefined {
  return run.tenants.find((t) => t.tenantId === h.policies.tenants.b.tenantId);
}

describe('anomaly detection with one tenant’s thousands of failing versions', () => {
  const rounds: Array<{ tenants: TenantDetection[]; failures: unknown[] }> = [];

  it('keeps each round within the budget, detects the bystander in the same round, and reaches every pair in later rounds', async () => {
    const attacker = h.policies.tenants.a;
    const extreme = { minSamples: 1, failureRateThreshold: 0.0001, windowMinutes: 1440, zombieGraceMinutes: 0, slowdownFactor: 1.01 };
    expect((await h.call(attacker, 'ADMIN', 'PUT', SETTINGS, extreme)).status).toBe(200);
    const seeded: RollupIncrement[] = [];
    for (let f = 0; f < FUNCTIONS; f += 1) {
      for (let version = 1; version <= VERSIONS; version += 1) {
        seeded.push({ policyModule: 'tenanta.bulk', policyFunction: `rule${f}`, version, minute: minuteBefore(10), count: 1, failures: 1, timeSum: 0.1, timeSquares: 0.01, max: 0.1 });
      }
    }
    await h.store.rollups.add(attacker.tenantId, seeded);
    await h.store.rollups.add(h.policies.tenants.b.tenantId, [
      { policyModule: 'tenantb.claims', policyFunction: 'assess', version: 1, minute: minuteBefore(10), count: 100, failures: 30, timeSum: 10, timeSquares: 1, max: 0.2 },
    ]);

    const roundsToOpenAll = Math.ceil(PAIRS / BUDGET.openedPerRound);
    await whileBystanderWorks(async () => {
      for (let round = 0; round < roundsToOpenAll + 2; round += 1) rounds.push(await h.runRound());
    });

    for (const run of rounds) {
      expect(run.failures).toEqual([]);
      const report = attackerOf(run);
      expect(report.versions).toBe(PAIRS);
      expect(report.opened).toBeLessThanOrEqual(BUDGET.openedPerRound);
      expect(report.assessed).toBeLessThanOrEqual(BUDGET.versionsPerRound);
      // The bystander's round is a job of its own in every round: its one version, assessed whole.
      expect(bystanderOf(run)).toMatchObject({ versions: 1, assessed: 1, continueAfter: null });
    }
    // The first round opens the budget's worth for the attacker and the bystander's anomaly with it.
    expect(attackerOf(rounds[0]!)).toMatchObject({ opened: BUDGET.openedPerRound, suppressed: 0 });
    expect(bystanderOf(rounds[0]!)).toMatchObject({ opened: 1 });
    const bystanderList = (await h.call<AnomalyPageView>(h.policies.tenants.b, 'ADMIN', 'GET', ANOMALIES)).body;
    expect(bystanderList.content.map((a) => [a.type, a.versionId])).toEqual([['HIGH_FAILURE_RATE', 'tenantb.claims@1']]);

    // Later rounds reach the rest: every pair has its anomaly, each opened once.
    expect(rounds.reduce((sum, run) => sum + attackerOf(run).opened, 0)).toBe(PAIRS);
    expect((await h.call<AnomalyPageView>(attacker, 'ADMIN', 'GET', `${ANOMALIES}?size=1`)).body.totalElements).toBe(PAIRS);
    // Once all are open, a round assesses the budget's worth in turn and writes nothing for unchanged findings.
    expect(attackerOf(rounds.at(-1)!)).toMatchObject({ assessed: BUDGET.versionsPerRound, opened: 0, updated: 0, unchanged: BUDGET.versionsPerRound });
    expect(attackerOf(rounds.at(-1)!).continueAfter).not.toBeNull();
  }, 180_000);

  it('answers bodies of 9,990 unknown names with a short 400 naming the first ten, refuses 95,000 before any route reads them, and changes nothing', async () => {
    const attacker = h.policies.tenants.a;
    const before = (await h.call<{ overrides: Record<string, number> }>(attacker, 'ADMIN', 'GET', SETTINGS)).body.overrides;
    // The widest object a body may hold is 10,000 members: the bodies below add up to two fields to these.
    const names = Array.from({ length: 9_990 }, (_, i) => `k${i.toString(36)}`);
    const wide = Object.fromEntries(names.map((name) => [name, 1]));
    const tooWide = Object.fromEntries(Array.from({ length: 95_000 }, (_, i) => [`k${i.toString(36)}`, 1]));
    const firstTen = names.slice(0, 10).map((name) => `\`${name}\``).join(', ');
    const [anomaly] = (await h.call<AnomalyPageView>(attacker, 'ADMIN', 'GET', `${ANOMALIES}?size=1`)).body.content;

    await whileBystanderWorks(async () => {
      const settings = await h.call<{ error: string; code: string }>(attacker, 'ADMIN', 'PUT', SETTINGS, wide);
      expect([settings.status, settings.body.code]).toEqual([400, 'ERR_ANOMALY_REQUEST_INVALID']);
      expect(settings.body.error).toContain(`${firstTen}, … and 9,980 more are not settings`);
      expect(JSON.stringify(settings.body).length).toBeLessThan(1000);

      const status = await h.call<{ error: string; code: string }>(attacker, 'ADMIN', 'PATCH', `${ANOMALIES}/${anomaly!.id}/status`, { status: 'RESOLVED', ...wide });
      expect([status.status, status.body.code]).toEqual([400, 'ERR_ANOMALY_REQUEST_INVALID']);
      expect(status.body.error).toContain(`unknown fields ${firstTen}, … and 9,980 more`);
      expect(JSON.stringify(status.body).length).toBeLessThan(1000);

      const evaluation = await failure(h.policies.signed(attacker, 'MEMBER').request('POST', '/api/v1/policies/evaluate-source', { source: PRICING, functionName: 'price', context: {}, ...wide }));
      expect([evaluation.status, evaluation.code]).toEqual([400, 'ERR_EVALUATION_REQUEST_INVALID']);
      expect(evaluation.body.error).toContain(`unknown fields ${firstTen}, … and 9,980 more`);
      expect(JSON.stringify(evaluation.body).length).toBeLessThan(1000);

      for (const [method, path, body] of [
        ['PUT', SETTINGS, tooWide],
        ['PATCH', `${ANOMALIES}/${anomaly!.id}/status`, { status: 'RESOLVED', ...tooWide }],
      ] as const) {
        const refused = await h.call<{ error: string; code: string }>(attacker, 'ADMIN', method, path, body);
        expect([refused.status, refused.body.code], path).toEqual([400, 'ERR_REQUEST_JSON_TOO_WIDE']);
      }
    });

    expect((await h.call<{ overrides: Record<string, number> }>(attacker, 'ADMIN', 'GET', SETTINGS)).body.overrides).toEqual(before);
    expect((await h.call<{ status: string }>(attacker, 'ADMIN', 'GET', `${ANOMALIES}/${anomaly!.id}`)).body.status).toBe('OPEN');
  }, 60_000);

  it('is still up and answering both tenants', async () => {
    expect((await fetch(`${h.policies.baseUrl}/healthz`)).status).toBe(200);
    const answer = await bystanderClient.evaluateSource<number>({ source: PRICING, functionName: 'price', context: { amount: 21 }, locale: 'en-US' });
    expect(answer.ok && answer.result).toBe(42);
    expect((await h.call(h.policies.tenants.a, 'ADMIN', 'GET', `${ANOMALIES}?size=1`)).status).toBe(200);
  });
});
