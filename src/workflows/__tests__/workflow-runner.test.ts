// The runner on a real (in-memory SQLite) store with rules answered in the test: slices, long
// workflows, racing runners, and definitions it cannot run.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkflowSignature, WorkflowStepInfo } from '../../language/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import type { StepEvaluation } from '../workflow-decision.js';
import { WorkflowError, WorkflowErrorCode } from '../workflow-errors.js';
import { MAX_EVENT_ERROR_LENGTH } from '../workflow-events.js';
import { createWorkflowRunner, type WorkflowRunner, type WorkflowRunnerDeps } from '../workflow-runner.js';
import type { WorkflowRecord } from '../workflow-store.js';

const TENANT = 'acme';

const ruleSteps = (count: number, compensate = false): WorkflowStepInfo[] =>
  Array.from({ length: count }, (_, i) => ({ name: `s${i + 1}`, kind: 'rule', rule: 'ok', args: ['n'], compensate: compensate ? { rule: 'undo', args: ['n'] } : null }));

const definitionOf = (steps: WorkflowStepInfo[]): WorkflowSignature => ({ name: 'flow', params: [{ name: 'n', type: 'Int' }], steps });

describe('the workflow runner', () => {
  let store: SqliteStore;
  let evaluations: number;
  let answer: (rule: string) => StepEvaluation;

  beforeEach(async () => {
    store = await openSqliteStore(':memory:');
    evaluations = 0;
    answer = () => ({ ok: true, result: true, executionTimeMs: 0 });
  });
  afterEach(() => store.close());

  function runnerFor(definition: WorkflowSignature | (() => Promise<WorkflowSignature>), extra: Partial<WorkflowRunnerDeps> = {}): WorkflowRunner {
    return createWorkflowRunner({
      workflows: store.workflows,
      definition: typeof definition === 'function' ? definition : async () => definition,
      evaluate: async (_tenantId, _record, rule) => {
        evaluations += 1;
        return answer(rule);
      },
      scheduleTimeout: async () => undefined,
      ...extra,
    });
  }

  async function started(id = `wf-${Math.random().toString(36).slice(2, 10)}`): Promise<string> {
    const record: WorkflowRecord = { workflowId: id, policyModule: 'm', version: 1, workflow: 'flow', context: { n: 1 }, actorId: 'alice', startedAt: new Date().toISOString() };
    await store.workflows.create(TENANT, record);
    await store.workflows.append(TENANT, id, [{ sequence: 1, eventType: 'WORKFLOW_STARTED', payload: {}, occurredAt: record.startedAt }]);
    return id;
  }

  /** The workflow as the list shows it. */
  const summary = async (id: string) => (await store.workflows.list(TENANT, { offset: 0, limit: 100 })).items.find((w) => w.workflowId === id);

  const eventTypes = async (id: string) => (await store.workflows.events(TENANT, id, 0, 100_000)).map((e) => e.eventType);

  it('runs a workflow of 1,500 steps to the end in slices, each of at most the slice’s events', async () => {
    const runner = runnerFor(definitionOf(ruleSteps(1500)));
    const id = await started();
    let slices = 0;
    for (;;) {
      const before = (await store.workflows.events(TENANT, id, 0, 100_000)).length;
      const { state, more } = await runner.advance(TENANT, id, { maxEvents: 100, maxMs: 60_000 });
      slices += 1;
      expect((await store.workflows.events(TENANT, id, 0, 100_000)).length - before).toBeLessThanOrEqual(100);
      if (!more) {
        expect(state).toMatchObject({ status: 'COMPLETED', finalResult: true });
        break;
      }
    }
    // 1,500 answers and the completion: 1,501 events in 100-event slices.
    expect(slices).toBe(16);
    const types = await eventTypes(id);
    expect(types).toHaveLength(1502);
    expect(types.filter((t) => t === 'POLICY_EVALUATED')).toHaveLength(1500);
    expect(evaluations).toBe(1500);
    expect(await store.workflows.listUnfinished(null, 10)).toEqual([]);
  });

  it('appends at least one event per slice, however little time the slice has', async () => {
    const runner = runnerFor(definitionOf(ruleSteps(3)));
    const id = await started();
    const outcomes = [];
    for (let call = 0; call < 4; call += 1) outcomes.push((await runner.advance(TENANT, id, { maxEvents: 50, maxMs: 0 })).more);
    expect(outcomes).toEqual([true, true, true, false]);
    expect(await eventTypes(id)).toEqual(['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'WORKFLOW_COMPLETED']);
  });

  it('runs a workflow of 1,200 steps in one call without a slice, counting only lost races against its limit', async () => {
    const id = await started();
    expect((await runnerFor(definitionOf(ruleSteps(1200))).advance(TENANT, id)).state).toMatchObject({ status: 'COMPLETED' });
    expect(await eventTypes(id)).toHaveLength(1202);
  });

  it('keeps one gapless log when runners of two processes advance the same workflow at once', async () => {
    const definition = definitionOf(ruleSteps(300, true));
    const id = await started();
    const [a, b] = await Promise.all([runnerFor(definition).advance(TENANT, id), runnerFor(definition).advance(TENANT, id)]);
    expect([a.state?.status, b.state?.status]).toEqual(['COMPLETED', 'COMPLETED']);
    const events = await store.workflows.events(TENANT, id, 0, 100_000);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.eventType === 'POLICY_EVALUATED').map((e) => e.payload.step)).toEqual(ruleSteps(300).map((s) => s.name));
  });

  it('compensates 1,000 done steps in reverse order after a failure, each once', async () => {
    const definition = definitionOf(ruleSteps(1001, true));
    const id = await started();
    let calls = 0;
    answer = (rule) => {
      if (rule === 'ok') calls += 1;
      return rule === 'ok' && calls === 1001 ? { ok: false, error: 'PL3004 no', executionTimeMs: 0 } : { ok: true, result: true, executionTimeMs: 0 };
    };
    expect((await runnerFor(definition).advance(TENANT, id)).state).toMatchObject({ status: 'FAILED', failedStep: 's1001' });
    const events = await store.workflows.events(TENANT, id, 0, 100_000);
    const compensated = events.filter((e) => e.eventType === 'COMPENSATION_COMPLETED').map((e) => e.payload.step);
    expect(compensated).toEqual(ruleSteps(1000).map((s) => s.name).reverse());
  });

  it('stores at most MAX_EVENT_ERROR_LENGTH characters of a failed rule’s error', async () => {
    const id = await started();
    answer = () => ({ ok: false, error: `PL3004 ${'x'.repeat(100_000)}`, executionTimeMs: 0 });
    await runnerFor(definitionOf(ruleSteps(1))).advance(TENANT, id);
    const failed = (await store.workflows.events(TENANT, id, 0, 100)).find((e) => e.eventType === 'COMPENSATION_STARTED')!;
    expect((failed.payload.error as string).length).toBe(MAX_EVENT_ERROR_LENGTH);
  });

  it('fails the step of a time limit past 365 days instead of throwing, and schedules nothing', async () => {
    const scheduled: number[] = [];
    const definition = definitionOf([...ruleSteps(1), { name: 'wait', kind: 'await', signal: 'go', withinMinutes: 99_999_999 * 1440 }]);
    const runner = runnerFor(definition, { scheduleTimeout: async (_t, _w, _s, delayMs) => void scheduled.push(delayMs) });
    const id = await started();
    expect((await runner.advance(TENANT, id)).state).toMatchObject({ status: 'FAILED', failedStep: 'wait' });
    expect(scheduled).toEqual([]);
    expect((await store.workflows.events(TENANT, id, 0, 100)).find((e) => e.eventType === 'COMPENSATION_STARTED')!.payload.error).toContain('longer than 365 days');
  });

  it('announces an end once stored and before marking the workflow finished; a failed announcement leaves it unmarked for the sweep', async () => {
    const announced: Array<[string, number, string, boolean]> = [];
    const announcing = (fail: boolean) =>
      runnerFor(definitionOf(ruleSteps(2)), {
        async announceEnd(tenantId, record, ended) {
          const unfinished = (await store.workflows.listUnfinished(null, 10)).some((w) => w.workflowId === record.workflowId);
          announced.push([record.workflowId, ended.sequence, ended.eventType, unfinished]);
          if (fail) throw new Error('queue away');
          expect(tenantId).toBe(TENANT);
        },
      });
    const failing = await started('wf-announce-fails');
    await expect(announcing(true).advance(TENANT, failing)).rejects.toThrow('queue away');
    expect(await eventTypes(failing)).toEqual(['WORKFLOW_STARTED', 'POLICY_EVALUATED', 'POLICY_EVALUATED', 'WORKFLOW_COMPLETED']);
    expect((await store.workflows.listUnfinished(null, 10)).map((w) => w.workflowId)).toEqual([failing]);

    const id = await started('wf-announced');
    await announcing(false).advance(TENANT, id);
    expect(announced).toEqual([
      [failing, 4, 'WORKFLOW_COMPLETED', true],
      [id, 4, 'WORKFLOW_COMPLETED', true],
    ]);
    expect((await store.workflows.listUnfinished(null, 10)).map((w) => w.workflowId)).toEqual([failing]);
  });

  it('ends a workflow whose module version no longer compiles as failed, and retries one the engine could not compile just now', async () => {
    const id = await started();
    const transient = runnerFor(async () => {
      throw new WorkflowError(503, WorkflowErrorCode.DEFINITION_UNAVAILABLE, 'could not be compiled now');
    });
    await expect(transient.advance(TENANT, id)).rejects.toThrow('could not be compiled now');
    expect(await eventTypes(id)).toEqual(['WORKFLOW_STARTED']);

    const announced: string[] = [];
    const gone = runnerFor(
      async () => {
        throw new WorkflowError(422, WorkflowErrorCode.DEFINITION_UNAVAILABLE, 'version 1 of `m` does not compile: PL4008 …');
      },
      { announceEnd: async (_tenantId, record, ended) => void announced.push(`${record.workflowId} ${ended.sequence} ${ended.eventType}`) },
    );
    expect(await gone.advance(TENANT, id)).toEqual({ state: null, more: false });
    const events = await store.workflows.events(TENANT, id, 0, 100);
    expect(events.map((e) => e.eventType)).toEqual(['WORKFLOW_STARTED', 'WORKFLOW_FAILED']);
    expect(events[1]!.payload).toEqual({ failedStep: null, error: 'version 1 of `m` does not compile: PL4008 …' });
    expect(await store.workflows.listUnfinished(null, 10)).toEqual([]);
    expect(await summary(id)).toMatchObject({ status: 'FAILED', currentStep: null, finalResult: null, finishedAt: events[1]!.occurredAt });
    expect(announced).toEqual([`${id} 2 WORKFLOW_FAILED`]);
    // Again: nothing more is appended or announced.
    await gone.advance(TENANT, id);
    expect(await eventTypes(id)).toHaveLength(2);
    expect(announced).toHaveLength(1);
  });

  it('times out a waiting step once, and leaves a step that no longer waits alone', async () => {
    const definition = definitionOf([{ name: 'wait', kind: 'await', signal: 'go', withinMinutes: 1 }, ...ruleSteps(1)]);
    const runner = runnerFor(definition);
    const id = await started();
    expect((await runner.advance(TENANT, id)).state).toMatchObject({ status: 'WAITING' });
    await runner.timeOut(TENANT, id, 'wait');
    await runner.timeOut(TENANT, id, 'wait');
    expect(await eventTypes(id)).toEqual(['WORKFLOW_STARTED', 'SIGNAL_AWAITED', 'SIGNAL_TIMED_OUT']);
    expect((await runner.advance(TENANT, id)).state).toMatchObject({ status: 'COMPLETED', finalResult: false });
  });

  it('stores the summary of the log after each slice and each time-out, and the ended one with the finished mark', async () => {
    const last: WorkflowStepInfo = { name: 'last', kind: 'rule', rule: 'ok', args: ['n'], compensate: null };
    const definition = definitionOf([...ruleSteps(3), { name: 'wait', kind: 'await', signal: 'go', withinMinutes: 1 }, last]);
    const runner = runnerFor(definition);
    const id = await started();
    await runner.advance(TENANT, id, { maxEvents: 2, maxMs: 60_000 });
    expect(await summary(id)).toMatchObject({ status: 'RUNNING', currentStep: 's3', finalResult: null, finishedAt: null });
    await runner.advance(TENANT, id);
    expect(await summary(id)).toMatchObject({ status: 'WAITING', currentStep: 'wait', finalResult: null, finishedAt: null });
    await runner.timeOut(TENANT, id, 'wait');
    expect(await summary(id)).toMatchObject({ status: 'RUNNING', currentStep: 'last' });
    await runner.advance(TENANT, id);
    const events = await store.workflows.events(TENANT, id, 0, 100);
    expect(events.at(-1)!.eventType).toBe('WORKFLOW_COMPLETED');
    expect(await summary(id)).toMatchObject({ status: 'COMPLETED', currentStep: null, finalResult: false, finishedAt: events.at(-1)!.occurredAt });
    expect(await store.workflows.listUnfinished(null, 10)).toEqual([]);
  });

  it('stores the summary of the log it read when a run appends nothing, as one queued by the resume sweep', async () => {
    const definition = definitionOf([{ name: 'wait', kind: 'await', signal: 'go', withinMinutes: null }]);
    const id = await started();
    // A writer that stopped after its append of SIGNAL_AWAITED, before the summary.
    await store.workflows.append(TENANT, id, [{ sequence: 2, eventType: 'SIGNAL_AWAITED', payload: { step: 'wait', signal: 'go', timeoutAt: null }, occurredAt: new Date().toISOString() }]);
    expect(await summary(id)).toMatchObject({ status: 'RUNNING' });
    await runnerFor(definition).advance(TENANT, id);
    expect(await eventTypes(id)).toEqual(['WORKFLOW_STARTED', 'SIGNAL_AWAITED']);
    expect(await summary(id)).toMatchObject({ status: 'WAITING', currentStep: 'wait' });
  });
});
