import { describe, expect, it } from 'vitest';
import type { WorkflowSignature } from '../../language/index.js';
import type { StoredWorkflowEvent } from '../workflow-events.js';
import { replay } from '../workflow-replay.js';

const DEFINITION: WorkflowSignature = {
  name: 'originate',
  params: [{ name: 'applicant', type: 'Applicant' }],
  steps: [
    { name: 'identity', kind: 'rule', rule: 'identityVerified', args: ['applicant'], compensate: null },
    { name: 'credit', kind: 'rule', rule: 'creditAcceptable', args: ['applicant'], compensate: { rule: 'release', args: ['applicant'] } },
    { name: 'review', kind: 'await', signal: 'approval', withinMinutes: 60 },
  ],
};

const log = (...entries: Array<[string, Record<string, unknown>?]>): StoredWorkflowEvent[] =>
  entries.map(([eventType, payload = {}], i) => ({ sequence: i + 1, eventType, payload, occurredAt: `2026-01-01T00:00:0${i}.000Z` }));

describe('replay', () => {
  it('starts RUNNING at the first step, before and after WORKFLOW_STARTED', () => {
    expect(replay(DEFINITION, [])).toMatchObject({ status: 'RUNNING', currentStep: 'identity', nextSequence: 1 });
    expect(replay(DEFINITION, log(['WORKFLOW_STARTED']))).toMatchObject({ status: 'RUNNING', currentStep: 'identity', nextSequence: 2 });
  });

  it('records step results and waits on an awaited signal', () => {
    const state = replay(
      DEFINITION,
      log(['WORKFLOW_STARTED'], ['POLICY_EVALUATED', { step: 'identity', result: true }], ['POLICY_EVALUATED', { step: 'credit', result: true }], ['SIGNAL_AWAITED', { step: 'review' }]),
    );
    expect(state).toMatchObject({ status: 'WAITING', currentStep: 'review', nextSequence: 5 });
    expect(state.steps.map((s) => [s.name, s.status, s.result])).toEqual([
      ['identity', 'DONE', true],
      ['credit', 'DONE', true],
      ['review', 'WAITING', null],
    ]);
  });

  it('takes a received signal’s approval and a time-out as false', () => {
    const awaited = log(['WORKFLOW_STARTED'], ['POLICY_EVALUATED', { step: 'identity', result: true }], ['POLICY_EVALUATED', { step: 'credit', result: true }], ['SIGNAL_AWAITED', { step: 'review' }]);
    const approved = replay(DEFINITION, [...awaited, { sequence: 5, eventType: 'SIGNAL_RECEIVED', payload: { step: 'review', approved: true }, occurredAt: '2026-01-01T00:01:00.000Z' }]);
    expect(approved.steps[2]).toMatchObject({ status: 'DONE', result: true });
    expect(approved.status).toBe('RUNNING');
    const timedOut = replay(DEFINITION, [...awaited, { sequence: 5, eventType: 'SIGNAL_TIMED_OUT', payload: { step: 'review' }, occurredAt: '2026-01-01T01:00:00.000Z' }]);
    expect(timedOut.steps[2]).toMatchObject({ status: 'DONE', result: false });
  });

  it('follows compensation and ends in the terminal state the log names', () => {
    const state = replay(
      DEFINITION,
      log(
        ['WORKFLOW_STARTED'],
        ['POLICY_EVALUATED', { step: 'identity', result: true }],
        ['POLICY_EVALUATED', { step: 'credit', result: true }],
        ['WORKFLOW_CANCEL_REQUESTED'],
        ['COMPENSATION_STARTED', { failedStep: 'review', error: 'cancelled' }],
        ['COMPENSATION_COMPLETED', { step: 'credit' }],
      ),
    );
    expect(state).toMatchObject({ status: 'RUNNING', compensating: true, cancelRequested: true, failedStep: 'review', error: 'cancelled' });
    expect(state.steps[1]!.status).toBe('COMPENSATED');
    const ended = replay(DEFINITION, [...log(['WORKFLOW_STARTED']), { sequence: 2, eventType: 'WORKFLOW_CANCELLED', payload: {}, occurredAt: '2026-01-01T00:00:09.000Z' }]);
    expect(ended).toMatchObject({ status: 'CANCELLED', currentStep: null });
    expect(replay(DEFINITION, log(['WORKFLOW_STARTED'], ['WORKFLOW_COMPLETED', { finalResult: false }]))).toMatchObject({ status: 'COMPLETED', finalResult: false });
  });
});
