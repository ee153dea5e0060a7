import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../audit/index.js';
import type { EvaluationItem, ItemResult } from '../../engine/index.js';
import { NoWorkerAvailableError } from '../../jobs/index.js';
import type { BatchEntry, SourceEvaluationRequest } from '../evaluation-request.js';
import { createEvaluationService } from '../evaluation-service.js';
import type { StoredPolicyEvaluation, StoredPolicyResolver } from '../stored-policy-resolver.js';

// The dispatcher and the audit writer are the edges of this unit: stand-ins record what they get.
function edges(answer: (item: EvaluationItem) => ItemResult = (item) => ({
  ok: true,
  value: `${item.functionName}:${JSON.stringify(item.context)}`,
  diagnostics: [],
  error: null,
  executionTimeMs: 1,
  moduleName: 'm',
})) {
  const calls: EvaluationItem[][] = [];
  const appended: Array<{ tenantId: string; event: AuditEvent }> = [];
  const dispatcher = {
    async evaluateMany(items: readonly EvaluationItem[]) {
      calls.push([...items]);
      return items.map(answer);
    },
  };
  const audit = {
    async append(tenantId: string, event: AuditEvent) {
      appended.push({ tenantId, event });
      return {} as never;
    },
  };
  return { calls, appended, dispatcher, audit };
}

const caller = { tenantId: 'acme', actorId: 'alice' };
const request = (functionName: string, x: number): SourceEvaluationRequest => ({ source: 'S', functionName, context: { x }, locale: 'en-US' });
const source = (functionName: string, x: number): BatchEntry => ({ kind: 'source', request: request(functionName, x) });

describe('evaluation service', () => {
  it('sends every evaluation of a batch in one dispatcher call and answers in input order', async () => {
    const { calls, appended, dispatcher, audit } = edges();
    const service = createEvaluationService({ dispatcher, audit });
    const answers = await service.evaluateBatch(
      caller,
      [source('a', 1), { kind: 'invalid', message: 'bad' }, source('b', 2), { kind: 'stored', request: { policyModule: 'p', policyFunction: 'f', context: {} } }],
      { trace: true },
    );
    expect(calls).toEqual([
      [
        { source: 'S', locale: 'en-US', functionName: 'a', context: { x: 1 }, trace: true },
        { source: 'S', locale: 'en-US', functionName: 'b', context: { x: 2 }, trace: true },
      ],
    ]);
    expect(answers.map((a) => a.result ?? a.code)).toEqual([
      'a:{"x":1}',
      'ERR_EVALUATION_ITEM_INVALID',
      'b:{"x":2}',
      'ERR_EVALUATION_STORED_POLICY_UNSUPPORTED',
    ]);
    expect(appended.map(({ tenantId, event }) => [tenantId, event.eventType, event.policyFunction, event.actorId])).toEqual([
      ['acme', 'SOURCE_EVALUATED', 'a', 'alice'],
      ['acme', 'SOURCE_EVALUATED', 'b', 'alice'],
    ]);
  });

  it('does not call the dispatcher when nothing in the batch can run', async () => {
    const { calls, dispatcher, audit } = edges();
    const answers = await createEvaluationService({ dispatcher, audit }).evaluateBatch(caller, [{ kind: 'invalid', message: 'm' }], { trace: false });
    expect(calls).toEqual([]);
    expect(answers).toEqual([{ result: null, error: 'm', executionTimeMs: 0, code: 'ERR_EVALUATION_ITEM_INVALID', diagnostics: [] }]);
  });

  it('does not answer before the audit record is stored, and fails when it cannot be', async () => {
    const { dispatcher } = edges();
    let release!: () => void;
    const stored = new Promise<void>((resolve) => (release = resolve));
    let answered = false;
    const slowAudit = { append: async () => (await stored, {} as never) };
    const pending = createEvaluationService({ dispatcher, audit: slowAudit })
      .evaluateSource(caller, request('a', 1), { trace: false })
      .then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    release();
    await pending;
    expect(answered).toBe(true);

    const failingAudit = { append: async () => Promise.reject(new Error('store down')) };
    await expect(createEvaluationService({ dispatcher, audit: failingAudit }).evaluateSource(caller, request('a', 1), { trace: false })).rejects.toThrow('store down');
  });

  it('passes the dispatcher failure on and audits nothing', async () => {
    const { audit, appended } = edges();
    const dispatcher = { evaluateMany: async () => Promise.reject(new NoWorkerAvailableError(5)) };
    await expect(createEvaluationService({ dispatcher, audit }).evaluateSource(caller, request('a', 1), { trace: false })).rejects.toBeInstanceOf(NoWorkerAvailableError);
    expect(appended).toEqual([]);
  });

  it('evaluates stored-policy references through a resolver and hands their outcomes back to it', async () => {
    const { calls, appended, dispatcher, audit } = edges();
    const recorded: StoredPolicyEvaluation[][] = [];
    const resolver: StoredPolicyResolver = {
      async resolve(tenantId, requests) {
        expect(tenantId).toBe('acme');
        return requests.map((r) =>
          r.policyModule === 'known'
            ? { ok: true, policy: { source: 'STORED', locale: 'de-DE', functionName: r.policyFunction, policyModule: 'known', version: 3, versionId: 'v3' } }
            : { ok: false, code: 'ERR_POLICY_NOT_FOUND', message: `no module \`${r.policyModule}\`` },
        );
      },
      async recordEvaluations(tenantId, actorId, evaluations) {
        expect([tenantId, actorId]).toEqual(['acme', 'alice']);
        recorded.push([...evaluations]);
      },
    };
    const answers = await createEvaluationService({ dispatcher, audit, storedPolicies: resolver }).evaluateBatch(
      caller,
      [
        { kind: 'stored', request: { policyModule: 'known', policyFunction: 'g', context: { x: 9 } } },
        { kind: 'stored', request: { policyModule: 'missing', policyFunction: 'g', context: {} } },
        source('a', 1),
      ],
      { trace: false },
    );
    expect(answers.map((a) => a.result ?? a.error)).toEqual(['g:{"x":9}', 'no module `missing`', 'a:{"x":1}']);
    expect(answers[1]!.code).toBe('ERR_POLICY_NOT_FOUND');
    expect(calls).toEqual([
      [
        { source: 'STORED', locale: 'de-DE', functionName: 'g', context: { x: 9 }, trace: false },
        { source: 'S', locale: 'en-US', functionName: 'a', context: { x: 1 }, trace: false },
      ],
    ]);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.map((e) => [e.policy.versionId, e.result.value])).toEqual([['v3', 'g:{"x":9}']]);
    // Stored evaluations are the resolver's to record; only source evaluations become SOURCE_EVALUATED.
    expect(appended.map((a) => a.event.policyFunction)).toEqual(['a']);
  });
});
