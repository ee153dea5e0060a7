// The decision alone: a replayed log in, what comes next out; no store, no engine, no clock of its own.
import { describe, expect, it } from 'vitest';
import type { WorkflowSignature } from '../../language/index.js';
import { decideNext, eventAfterRun, type DecisionClock, type StepRun } from '../workflow-decision.js';
import { MAX_EVENT_ERROR_LENGTH, type StoredWorkflowEvent } from '../workflow-events.js';
import { WorkflowReplay } from '../workflow-replay.js';

const DEFINITION: WorkflowSignature = {
  name: 'originate',
  params: [{ name: 'applicant', type: 'Applicant' }],
  steps: [
    { name: 'identity', kind: 'rule', rule: 'identityVerified', args: ['applicant'], compensate: { rule: 'forgetIdentity', args: ['applicant'] } },
    { name: 'credit', kind: 'rule', rule: 'creditAcceptable', args: ['applicant'], compensate: { rule: 'release', args: ['applicant'] } },
    { name: 'review', kind: 'await', signal: 'approval', withinMinutes: 60 },
    { name: 'notify', kind: 'await', signal: 'sent', withinMinutes: null },
  ],
};

const CLOCK: DecisionClock = { at: new Date('2026-05-01T12:00:00.000Z'), minuteMs: 60_000 };

const log = (...entries: Array<[string, Record<string, unknown>?]>): StoredWorkflowEvent[] =>
  entries.map(([eventType, payload = {}], i) => ({ sequence: i + 1, eventType, payload, occurredAt: '2026-05-01T11:00:00.000Z' }));

const decide = (entries: StoredWorkflowEvent[], definition = DEFINITION, clock = CLOCK) => decideNext(new WorkflowReplay(definition).apply(entries), definition, clock);

const passed = (step: string): [string, Record<string, unknown>] => ['POLICY_EVALUATED', { step, result: true }];
const started: [string] = ['WORKFLOW_STARTED'];

describe('deciding what comes next', () => {
  it('asks for the first open rule step to be run, with its rule and arguments', () => {
    expect(decide(log(started))).toEqual({ kind: 'run', run: { purpose: 'step', step: 'identity', rule: 'identityVerified', args: ['applicant'] } });
    expect(decide(log(started, passed('identity')))).toEqual({ kind: 'run', run: { purpose: 'step', step: 'credit', rule: 'creditAcceptable', args: ['applicant'] } });
  });

  it('awaits a signal, its time limit counted from the clock, and asks for the time-out to be scheduled', () => {
    expect(decide(log(started, passed('identity'), passed('credit')))).toEqual({
      kind: 'append',
      event: { eventType: 'SIGNAL_AWAITED', payload: { step: 'review', signal: 'approval', timeoutAt: '2026-05-01T13:00:00.000Z' } },
      timeout: { step: 'review', delayMs: 3_600_000 },
    });
    expect(decide(log(started, passed('identity'), passed('credit')), DEFINITION, { ...CLOCK, minuteMs: 10 })).toMatchObject({
      event: { payload: { timeoutAt: '2026-05-01T12:00:00.600Z' } },
      timeout: { delayMs: 600 },
    });
    const signalled = log(started, passed('identity'), passed('credit'), ['SIGNAL_AWAITED', { step: 'review' }], ['SIGNAL_RECEIVED', { step: 'review', approved: true }]);
    expect(decide(signalled)).toEqual({ kind: 'append', event: { eventType: 'SIGNAL_AWAITED', payload: { step: 'notify', signal: 'sent', timeoutAt: null } } });
  });

  it('fails a step whose time limit is past the bound instead of awaiting it', () => {
    const definition: WorkflowSignature = { ...DEFINITION, steps: [{ name: 'review', kind: 'await', signal: 'approval', withinMinutes: 600_000 }] };
    expect(decide(log(started), definition)).toEqual({
      kind: 'append',
      event: { eventType: 'COMPENSATION_STARTED', payload: { failedStep: 'review', error: 'the time limit of 600000 minutes is longer than 365 days' } },
    });
  });

  it('completes with false at once after a false answer, and with true when every step is done', () => {
    const refused = log(started, ['POLICY_EVALUATED', { step: 'identity', result: false }]);
    expect(decide(refused)).toEqual({ kind: 'append', event: { eventType: 'WORKFLOW_COMPLETED', payload: { finalResult: false } } });
    const signalled = (step: string): Array<[string, Record<string, unknown>]> => [['SIGNAL_AWAITED', { step }], ['SIGNAL_RECEIVED', { step, approved: true }]];
    const done = log(started, passed('identity'), passed('credit'), ...signalled('review'), ...signalled('notify'));
    expect(decide(done)).toEqual({ kind: 'append', event: { eventType: 'WORKFLOW_COMPLETED', payload: { finalResult: true } } });
  });

  it('decides nothing while the workflow waits or after it ended', () => {
    expect(decide(log(started, passed('identity'), passed('credit'), ['SIGNAL_AWAITED', { step: 'review' }]))).toBeNull();
    expect(decide(log(started, ['WORKFLOW_COMPLETED', { finalResult: true }]))).toBeNull();
    expect(decide(log(started, ['WORKFLOW_CANCELLED']))).toBeNull();
  });

  it('compensates the completed steps in reverse order after a failure, then fails with its reason', () => {
    const failed = log(started, passed('identity'), passed('credit'), ['COMPENSATION_STARTED', { failedStep: 'review', error: 'boom' }]);
    expect(decide(failed)).toEqual({ kind: 'run', run: { purpose: 'compensation', step: 'credit', rule: 'release', args: ['applicant'] } });
    const creditUndone = [...failed, { sequence: 5, eventType: 'COMPENSATION_COMPLETED', payload: { step: 'credit' }, occurredAt: '2026-05-01T11:00:00.000Z' }];
    expect(decide(creditUndone)).toEqual({ kind: 'run', run: { purpose: 'compensation', step: 'identity', rule: 'forgetIdentity', args: ['applicant'] } });
    const allUndone = [...creditUndone, { sequence: 6, eventType: 'COMPENSATION_COMPLETED', payload: { step: 'identity' }, occurredAt: '2026-05-01T11:00:00.000Z' }];
    expect(decide(allUndone)).toEqual({ kind: 'append', event: { eventType: 'WORKFLOW_FAILED', payload: { failedStep: 'review', error: 'boom' } } });
  });

  it('starts compensation on a cancel at the current step, and ends cancelled once it is done', () => {
    const cancelled = log(started, passed('identity'), ['WORKFLOW_CANCEL_REQUESTED', { by: 'bob' }]);
    expect(decide(cancelled)).toEqual({ kind: 'append', event: { eventType: 'COMPENSATION_STARTED', payload: { failedStep: 'credit', error: 'cancelled' } } });
    const compensating = log(started, ['WORKFLOW_CANCEL_REQUESTED', { by: 'bob' }], ['COMPENSATION_STARTED', { failedStep: 'identity', error: 'cancelled' }]);
    expect(decide(compensating)).toEqual({ kind: 'append', event: { eventType: 'WORKFLOW_CANCELLED', payload: {} } });
  });

  it('gives the same decision for the same log and clock, however often it is asked', () => {
    const entries = log(started, passed('identity'), passed('credit'), ['COMPENSATION_STARTED', { failedStep: 'review', error: 'boom' }]);
    const replayed = new WorkflowReplay(DEFINITION).apply(entries);
    const first = decideNext(replayed, DEFINITION, CLOCK);
    expect(decideNext(replayed, DEFINITION, CLOCK)).toEqual(first);
    expect(decide(entries)).toEqual(first);
  });
});

describe('the event a rule’s answer makes', () => {
  const step: StepRun = { purpose: 'step', step: 'credit', rule: 'creditAcceptable', args: ['applicant'] };
  const compensation: StepRun = { purpose: 'compensation', step: 'credit', rule: 'release', args: ['applicant'] };

  it('records a step’s answer, its time in whole milliseconds', () => {
    expect(eventAfterRun(step, { ok: true, result: false, executionTimeMs: 1.6 }, 'lending')).toEqual({
      eventType: 'POLICY_EVALUATED',
      payload: { step: 'credit', policyModule: 'lending', policyFunction: 'creditAcceptable', result: false, executionTimeMs: 2 },
    });
  });

  it('starts compensation when a step’s rule could not answer, its error cut to the bound', () => {
    const event = eventAfterRun(step, { ok: false, error: 'x'.repeat(MAX_EVENT_ERROR_LENGTH + 10), executionTimeMs: 3 }, 'lending');
    expect(event).toEqual({ eventType: 'COMPENSATION_STARTED', payload: { failedStep: 'credit', error: `${'x'.repeat(MAX_EVENT_ERROR_LENGTH - 1)}…` } });
  });

  it('completes a compensation whatever it answered, with the error when it could not answer', () => {
    expect(eventAfterRun(compensation, { ok: true, result: true, executionTimeMs: 0.2 }, 'lending')).toEqual({
      eventType: 'COMPENSATION_COMPLETED',
      payload: { step: 'credit', policyModule: 'lending', policyFunction: 'release', result: true, executionTimeMs: 0 },
    });
    expect(eventAfterRun(compensation, { ok: false, error: 'no', executionTimeMs: 1 }, 'lending')).toEqual({
      eventType: 'COMPENSATION_COMPLETED',
      payload: { step: 'credit', policyModule: 'lending', policyFunction: 'release', result: false, executionTimeMs: 1, error: 'no' },
    });
  });
});
