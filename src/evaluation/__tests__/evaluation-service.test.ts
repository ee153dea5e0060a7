import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditEvent } from '../../audit/index.js';
import { DependencyUnavailableError } from '../../errors/index.js';
import type { EngineRequest, ItemResult } from '../../engine/index.js';
import { createCallerGone, NoWorkerAvailableError } from '../../evaluation/index.js';
import type { RollupIncrement, RollupRepository } from '../../rollups/index.js';
import { RequesterGoneError } from '../evaluation-errors.js';
import type { BatchEntry, SourceEvaluationRequest } from '../evaluation-request.js';
import { createEvaluationService, type EvaluationAnswer, type EvaluationServiceDeps } from '../evaluation-service.js';
import type { PolicyResolver } from '../policy-resolver.js';
import type { StoreWaitExceeded } from '../store-wait.js';

type Answer = (request: EngineRequest) => ItemResult;
const echo: Answer = (request) =>
  request.kind === 'evaluate'
    ? { kind: 'evaluated', ok: true, value: `${request.functionName}:${JSON.stringify(request.context)}`, executionTimeMs: 1, moduleName: 'm' }
    : { kind: 'compiled', ok: true, module: { moduleName: 'm', locale: 'en-US', functions: [], workflows: [] }, diagnostics: [], executionTimeMs: 1 };

// The dispatcher, audit writer, rollup store and resolver are the edges of this unit: stand-ins record what they get.
function edges(answer: Answer = echo) {
  const calls: EngineRequest[][] = [];
  const appended: Array<{ tenantId: string; event: AuditEvent }> = [];
  const rollupsAdded: Array<{ tenantId: string; increments: RollupIncrement[] }> = [];
  const dispatcher = {
    async dispatch(requests: readonly EngineRequest[]) {
      calls.push([...requests]);
      return requests.map(answer);
    },
  };
  const audit = {
    async append(tenantId: string, event: AuditEvent) {
      appended.push({ tenantId, event });
      return { id: `record-${appended.length}`, contentHash: `hash-${appended.length}` };
    },
  };
  const rollups = {
    async add(tenantId: string, increments: RollupIncrement[]) {
      rollupsAdded.push({ tenantId, increments });
    },
  } as unknown as RollupRepository;
  const policies: PolicyResolver = {
    async resolve(tenantId, request) {
      expect(tenantId).toBe('acme');
      return request.policyModule === 'known'
        ? { ok: true, policy: { source: 'STORED', locale: 'de-DE', functionName: request.policyFunction, policyModule: 'known', version: 3, versionId: 'known@3' } }
        : { ok: false, code: 'ERR_POLICY_NOT_FOUND', message: `no policy module \`${request.policyModule}\`` };
    },
  };
  const deps: EvaluationServiceDeps = { dispatcher, audit, rollups, policies };
  return { calls, appended, rollupsAdded, deps };
}

const caller = { tenantId: 'acme', actorId: 'alice' };
const request = (functionName: string, x: number): SourceEvaluationRequest => ({ source: 'S', functionName, context: { x }, locale: 'en-US' });
const source = (functionName: string, x: number): BatchEntry => ({ kind: 'source', request: request(functionName, x) });
const stored = (policyModule: string, context: unknown = {}): BatchEntry => ({
  kind: 'stored',
  request: { policyModule, policyFunction: 'g', context: context as Record<string, unknown> },
});
const valueOrCode = ({ result }: EvaluationAnswer) => (result.ok ? result.value : result.code);

describe('evaluation service', () => {
  it('sends every evaluation of a call in one dispatch, tenant-scoped, and answers in input order', async () => {
    const { calls, appended, deps } = edges();
    const service = createEvaluationService(deps);
    const answers = await service.evaluate(
      caller,
      [source('a', 1), { kind: 'invalid', code: 'ERR_EVALUATION_ITEM_INVALID', message: 'bad' }, source('b', 2), stored('known', { x: 9 }), stored('missing')],
      { trace: true },
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]!.map((r) => [r.kind, r.tenantId, r.source, r.kind === 'evaluate' ? r.functionName : null])).toEqual([
      ['evaluate', 'acme', 'S', 'a'],
      ['evaluate', 'acme', 'S', 'b'],
      ['evaluate', 'acme', 'STORED', 'g'],
    ]);
    expect(calls[0]!.every((r) => r.kind === 'evaluate' && r.trace === true)).toBe(true);
    expect(answers.map(valueOrCode)).toEqual(['a:{"x":1}', 'ERR_EVALUATION_ITEM_INVALID', 'b:{"x":2}', 'g:{"x":9}', 'ERR_POLICY_NOT_FOUND']);
    expect(answers[3]!.policy).toMatchObject({ versionId: 'known@3' });
    expect(answers[4]!.notFound).toBe(true);
    expect(appended.map(({ tenantId, event }) => [tenantId, event.eventType, event.policyFunction, event.actorId])).toEqual([
      ['acme', 'SOURCE_EVALUATED', 'a', 'alice'],
      ['acme', 'SOURCE_EVALUATED', 'b', 'alice'],
      ['acme', 'POLICY_EVALUATED', 'g', 'alice'],
    ]);
  });

  it('gives every evaluated entry the receipt of its own record, and none to an entry refused before it', async () => {
    const { appended, deps } = edges();
    let deep: unknown = 1;
    for (let i = 0; i < 20; i++) deep = [deep];
    const answers = await createEvaluationService({ ...deps, limits: { contextMaxDepth: 8 } }).evaluate(
      caller,
      [
        source('a', 1),
        { kind: 'invalid', code: 'ERR_EVALUATION_ITEM_INVALID', message: 'bad' },
        stored('missing'),
        { kind: 'source', request: { source: 'S', functionName: 'f', locale: 'en-US', context: { x: deep } } },
        stored('known'),
        source('b', 2),
      ],
      { trace: false },
    );
    expect(appended.map(({ event }) => event.policyFunction)).toEqual(['a', 'g', 'b']);
    expect(answers.map((answer) => answer.receipt)).toEqual([
      { id: 'record-1', contentHash: 'hash-1' },
      undefined,
      undefined,
      undefined,
      { id: 'record-2', contentHash: 'hash-2' },
      { id: 'record-3', contentHash: 'hash-3' },
    ]);
  });

  it('counts stored-policy evaluations in the rollups, and only those', async () => {
    const { rollupsAdded, deps } = edges();
    const service = createEvaluationService(deps);
    await service.evaluate(caller, [stored('known'), stored('known'), source('a', 1)], { trace: false });
    await service.flush();
    const increments = rollupsAdded.flatMap((write) => write.increments);
    expect(increments).toEqual([expect.objectContaining({ policyModule: 'known', policyFunction: 'g', version: 3, count: 2, failures: 0 })]);
  });

  it('splits the response budget among the items of a call', async () => {
    const { calls, deps } = edges();
    await createEvaluationService({ ...deps, limits: { maxResponseBytes: 1000 } }).evaluate(caller, [source('a', 1), source('b', 2), source('c', 3), source('d', 4)], {
      trace: false,
    });
    expect(calls[0]!.map((r) => (r.kind === 'evaluate' ? r.outputLimitBytes : null))).toEqual([250, 250, 250, 250]);
  });

  it('fails a context nested deeper than the bound without dispatching it', async () => {
    const { calls, deps } = edges();
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const answers = await createEvaluationService({ ...deps, limits: { contextMaxDepth: 8 } }).evaluate(
      caller,
      [{ kind: 'source', request: { source: 'S', functionName: 'f', locale: 'en-US', context: { x: deep } } }, source('b', 2)],
      { trace: false },
    );
    expect(answers.map(valueOrCode)).toEqual(['ERR_EVALUATION_CONTEXT_TOO_DEEP', 'b:{"x":2}']);
    expect(calls[0]).toHaveLength(1);
  });

  it('does not call the dispatcher when nothing in the call can run', async () => {
    const { calls, deps } = edges();
    const answers = await createEvaluationService(deps).evaluate(caller, [{ kind: 'invalid', code: 'ERR_EVALUATION_ITEM_INVALID', message: 'm' }], {
      trace: false,
    });
    expect(calls).toEqual([]);
    expect(answers[0]!.result).toEqual({ kind: 'evaluated', ok: false, code: 'ERR_EVALUATION_ITEM_INVALID', error: 'm', diagnostics: [], executionTimeMs: 0 });
  });

  it('does not answer before the audit record is stored, and fails when it cannot be', async () => {
    const { deps } = edges();
    let release!: () => void;
    const stored = new Promise<void>((resolve) => (release = resolve));
    let answered = false;
    const slowAudit = { append: async () => (await stored, {} as never) };
    const pending = createEvaluationService({ ...deps, audit: slowAudit })
      .evaluate(caller, [source('a', 1)], { trace: false })
      .then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    release();
    await pending;
    expect(answered).toBe(true);

    const failingAudit = { append: async () => Promise.reject(new Error('store down')) };
    await expect(createEvaluationService({ ...deps, audit: failingAudit }).evaluate(caller, [source('a', 1)], { trace: false })).rejects.toThrow('store down');
  });

  it('passes the dispatcher failure on and audits nothing', async () => {
    const { appended, deps } = edges();
    const dispatcher = { dispatch: async () => Promise.reject(new NoWorkerAvailableError(5)) };
    await expect(createEvaluationService({ ...deps, dispatcher }).evaluate(caller, [source('a', 1)], { trace: false })).rejects.toBeInstanceOf(
      NoWorkerAvailableError,
    );
    expect(appended).toEqual([]);
  });

  it('rejects with RequesterGoneError when the requester has already gone, dispatching nothing', async () => {
    const { calls, deps } = edges();
    const gone = createCallerGone();
    gone.markGone(new RequesterGoneError());
    await expect(createEvaluationService(deps).evaluate(caller, [source('a', 1)], { trace: false, gone })).rejects.toMatchObject({
      name: 'RequesterGoneError',
      code: 'ERR_EVALUATION_CANCELLED',
    });
    expect(calls).toEqual([]);
  });

  it('compiles through the dispatcher as a compile request of the tenant', async () => {
    const { calls, deps } = edges();
    const outcome = await createEvaluationService(deps).compile('acme', 'Module m.', 'de');
    expect(outcome).toMatchObject({ kind: 'compiled', ok: true });
    expect(calls).toEqual([[{ kind: 'compile', tenantId: 'acme', source: 'Module m.', locale: 'de' }]]);
  });
  describe('store wait', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    /** A promise settled by hand. */
    function deferred<T>() {
      let resolve!: (value: T) => void;
      const promise = new Promise<T>((res) => {
        resolve = res;
      });
      return { promise, resolve };
    }

    /** Follows a call: what it answered or failed with, once it has settled. */
    function follow<T>(promise: Promise<T>) {
      const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
      promise.then(
        (value) => Object.assign(state, { settled: true, value }),
        (error: unknown) => Object.assign(state, { settled: true, error }),
      );
      return state;
    }

    function service(overrides: Partial<EvaluationServiceDeps>, storeWaitMs?: number) {
      const { deps } = edges();
      const exceeded: StoreWaitExceeded[] = [];
      const evaluation = createEvaluationService({
        ...deps,
        ...overrides,
        ...(storeWaitMs === undefined ? {} : { limits: { storeWaitMs } }),
        onStoreWaitExceeded: (event) => exceeded.push(event),
      });
      return { deps, evaluation, exceeded };
    }

    it('answers 503 when the records are not stored within storeWaitMs, and tells which part did not answer', async () => {
      const { evaluation, exceeded } = service({ audit: { append: () => new Promise<never>(() => {}) } }, 30);
      const call = follow(evaluation.evaluate(caller, [source('a', 1)], { trace: false }));
      await vi.advanceTimersByTimeAsync(29);
      expect(call.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(call.error).toBeInstanceOf(DependencyUnavailableError);
      expect(call.error).toMatchObject({ status: 503, code: 'ERR_SERVICE_UNAVAILABLE', headers: { 'Retry-After': '2' } });
      expect(exceeded).toEqual([{ tenantId: 'acme', part: 'audit records', waitMs: 30 }]);
    });

    it('answers 503 when the policy lookup does not answer within storeWaitMs', async () => {
      const { evaluation, exceeded } = service({ policies: { resolve: () => new Promise<never>(() => {}) } }, 30);
      const call = follow(evaluation.evaluate(caller, [stored('known')], { trace: false }));
      await vi.advanceTimersByTimeAsync(30);
      expect(call.error).toBeInstanceOf(DependencyUnavailableError);
      expect(exceeded).toEqual([{ tenantId: 'acme', part: 'policy lookup', waitMs: 30 }]);
    });

    it('counts the lookup against the wait: the records get only what it left', async () => {
      const lookup = deferred<void>();
      const { policies } = edges().deps;
      const slowLookup: PolicyResolver = {
        async resolve(tenantId, request) {
          await lookup.promise;
          return policies.resolve(tenantId, request);
        },
      };
      const slow = service({ policies: slowLookup, audit: { append: () => new Promise<never>(() => {}) } }, 100);
      const call = follow(slow.evaluation.evaluate(caller, [stored('known')], { trace: false }));
      await vi.advanceTimersByTimeAsync(60);
      lookup.resolve();
      await vi.advanceTimersByTimeAsync(39);
      expect(call.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(call.error).toBeInstanceOf(DependencyUnavailableError);
      expect(slow.exceeded).toEqual([{ tenantId: 'acme', part: 'audit records', waitMs: 100 }]);

      // Records as slow as that answer when the lookup took nothing.
      const record = deferred<never>();
      const quick = service({ audit: { append: () => record.promise } }, 100);
      const answered = follow(quick.evaluation.evaluate(caller, [stored('known')], { trace: false }));
      await vi.advanceTimersByTimeAsync(60);
      record.resolve({} as never);
      await vi.advanceTimersByTimeAsync(0);
      expect((answered.value as EvaluationAnswer[]).map(valueOrCode)).toEqual(['g:{}']);
      expect(quick.exceeded).toEqual([]);
    });

    it('without storeWaitMs, waits for the store as long as it takes', async () => {
      const record = deferred<never>();
      const { evaluation, exceeded } = service({ audit: { append: () => record.promise } });
      const call = follow(evaluation.evaluate(caller, [source('a', 1)], { trace: false }));
      await vi.advanceTimersByTimeAsync(600_000);
      expect(call.settled).toBe(false);
      record.resolve({} as never);
      await vi.advanceTimersByTimeAsync(0);
      expect((call.value as EvaluationAnswer[]).map(valueOrCode)).toEqual(['a:{"x":1}']);
      expect(exceeded).toEqual([]);
    });
  });
});
