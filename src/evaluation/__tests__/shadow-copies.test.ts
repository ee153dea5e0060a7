import { describe, expect, it } from 'vitest';
import type { EngineRequest, EvaluationOutcome, ItemResult } from '../../engine/index.js';
import type { RollupRepository } from '../../rollups/index.js';
import { createEvaluationService } from '../evaluation-service.js';
import type { PolicyResolver, ResolvedPolicy } from '../policy-resolver.js';
import type { ShadowComparison } from '../shadow-copies.js';

// The answering dispatcher, the shadow dispatcher, the tally, audit and rollups are the edges:
// stand-ins record what they get. The shadow dispatcher answers only when the test says so.
const policy = (version: number): ResolvedPolicy => ({ source: `V${version}`, locale: 'en-US', functionName: 'price', policyModule: 'm.x', version, versionId: `m.x@${version}` });
const evaluated = (value: unknown): ItemResult => ({ kind: 'evaluated', ok: true, value: value as never, executionTimeMs: 1, moduleName: 'm.x' });
const failed = (code: string): ItemResult => ({ kind: 'evaluated', ok: false, code, error: code, diagnostics: [], executionTimeMs: 1 });

function setup(options: { maxPending?: number; shadowAnswer?: (request: EngineRequest) => ItemResult } = {}) {
  const counted: ShadowComparison[] = [];
  const releases: Array<() => void> = [];
  let shadowFails = false;
  const shadowDispatcher = {
    dispatch(requests: readonly EngineRequest[]): Promise<ItemResult[]> {
      return new Promise((resolve, reject) => {
        releases.push(() => (shadowFails ? reject(new Error('no worker')) : resolve(requests.map(options.shadowAnswer ?? (() => evaluated(0))))));
      });
    },
  };
  const policies: PolicyResolver = {
    async resolve() {
      return { ok: true, policy: policy(1), rollout: { pick: () => ({ answer: policy(1), shadow: { policy: policy(2), rollout: 7, captureContexts: false }, routed: null }) } };
    },
  };
  const rollupsAdded: unknown[] = [];
  const service = createEvaluationService({
    dispatcher: { dispatch: async (requests) => requests.map((r) => (r.kind === 'evaluate' && (r.context as { x: number }).x > 5 ? failed('PL0001') : evaluated((r.context as { x: number }).x * 2))) },
    audit: { append: async () => ({ id: 'r', contentHash: 'h' }) },
    rollups: { add: async (_tenant: string, increments: unknown[]) => void rollupsAdded.push(...increments) } as unknown as RollupRepository,
    policies,
    shadow: { dispatcher: shadowDispatcher, tally: { count: (c) => counted.push(c), observe: () => {} }, ...(options.maxPending ? { maxPending: options.maxPending } : {}) },
  });
  const evaluate = (x: number, tenantId = 'acme') => service.evaluate({ tenantId, actorId: 'a' }, [{ kind: 'stored', request: { policyModule: 'm.x', policyFunction: 'price', context: { x } } }], { trace: false });
  return {
    service,
    evaluate,
    counted,
    rollupsAdded,
    releaseAll: () => releases.splice(0).forEach((release) => release()),
    failShadow: () => {
      shadowFails = true;
    },
  };
}

describe('shadow copies', () => {
  it('answer before the copy runs: a shadow that never answers delays and fails nothing', async () => {
    const s = setup();
    const [answer] = await s.evaluate(2);
    expect(answer!.result).toMatchObject({ ok: true, value: 4 });
    expect(answer!.policy!.version).toBe(1);
    // The answer is out; the copy still waits for its dispatcher.
    expect(s.counted).toEqual([]);
    s.releaseAll();
    await s.service.flush();
    expect(s.counted).toEqual([expect.objectContaining({ tenantId: 'acme', policyModule: 'm.x', rollout: 7, outcome: 'disagreed' })]);
    expect(s.counted[0]!.sample).toMatchObject({ stable: { ok: true, value: 4 }, shadow: { ok: true, value: 0 }, policyFunction: 'price' });
    expect(s.counted[0]!.sample).not.toHaveProperty('context');
  });

  it('compare values and error codes: agreed, disagreed, errors', async () => {
    const s = setup({ shadowAnswer: (r) => ((r.context as { x: number }).x === 1 ? evaluated(2) : (r.context as { x: number }).x === 9 ? failed('PL0001') : failed('PL0002')) });
    for (const x of [1, 9, 3, 7]) await s.evaluate(x);
    s.releaseAll();
    await s.service.flush();
    // 1: 2 = 2; 9: both PL0001; 3: 6 against a failure (an error of the shadow); 7: PL0001 against PL0002.
    expect(s.counted.map((c) => c.outcome)).toEqual(['agreed', 'agreed', 'errors', 'disagreed']);
    expect(s.counted.map((c) => c.sample === undefined)).toEqual([true, true, false, false]);
  });

  it('are skipped, and counted so, when nothing can run them or too many are pending; the answers stand', async () => {
    // 8 in the process, so 2 per tenant.
    const s = setup({ maxPending: 8 });
    const answers = await Promise.all([1, 2, 3, 4].map((x) => s.evaluate(x)));
    expect(answers.map(([a]) => (a!.result as EvaluationOutcome & { value: unknown }).value)).toEqual([2, 4, 6, 8]);
    expect(s.counted.map((c) => c.outcome)).toEqual(['skipped', 'skipped']);
    s.failShadow();
    s.releaseAll();
    await s.service.flush();
    expect(s.counted.map((c) => c.outcome)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
  });

  it('keep a quarter of the pending places per tenant: one tenant\'s shadows leave room for the others\'', async () => {
    const s = setup({ maxPending: 8 });
    for (let i = 0; i < 5; i += 1) await s.evaluate(i, 'greedy');
    await s.evaluate(1, 'bystander');
    expect(s.counted.map((c) => `${c.tenantId}:${c.outcome}`)).toEqual(['greedy:skipped', 'greedy:skipped', 'greedy:skipped']);
    s.releaseAll();
    await s.service.flush();
    expect(s.counted.filter((c) => c.tenantId === 'bystander').map((c) => c.outcome)).toEqual(['disagreed']);
  });

  it('count the shadow version\'s evaluations in its rollups, beside the answering version\'s', async () => {
    const s = setup();
    await s.evaluate(1);
    s.releaseAll();
    await s.service.flush();
    expect(s.rollupsAdded).toEqual(expect.arrayContaining([expect.objectContaining({ version: 1, count: 1 }), expect.objectContaining({ version: 2, count: 1 })]));
  });
});
