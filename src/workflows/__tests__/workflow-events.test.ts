import { describe, expect, it } from 'vitest';
import type { WorkflowSignature } from '../../language/index.js';
import { readWorkflowEvent, type StoredWorkflowEvent } from '../workflow-events.js';
import { replay } from '../workflow-replay.js';

const entry = (sequence: number, eventType: string, payload: Record<string, unknown> = {}): StoredWorkflowEvent => ({
  sequence,
  eventType,
  payload,
  occurredAt: '2026-05-01T10:00:00.000Z',
});

const DEFINITION: WorkflowSignature = { name: 'flow', params: [], steps: [{ name: 'check', kind: 'rule', rule: 'ok', args: [], compensate: null }] };

describe('reading a stored event back', () => {
  it('keeps the facts of its payload and leaves the detail', () => {
    const stored = entry(2, 'POLICY_EVALUATED', { step: 'check', policyModule: 'm', policyFunction: 'ok', result: true, executionTimeMs: 3 });
    expect(readWorkflowEvent(stored)).toEqual({ sequence: 2, eventType: 'POLICY_EVALUATED', payload: { step: 'check', result: true }, occurredAt: stored.occurredAt });
    expect(readWorkflowEvent(entry(3, 'SIGNAL_AWAITED', { step: 'review', signal: 'approval', timeoutAt: null }))?.payload).toEqual({ step: 'review', timeoutAt: null });
  });

  it('counts an answer that is not true as false, and a missing text as null', () => {
    expect(readWorkflowEvent(entry(2, 'POLICY_EVALUATED', { step: 'check', result: 'yes' }))?.payload).toEqual({ step: 'check', result: false });
    expect(readWorkflowEvent(entry(2, 'SIGNAL_RECEIVED', { step: 'check' }))?.payload).toEqual({ step: 'check', approved: false });
    expect(readWorkflowEvent(entry(2, 'WORKFLOW_COMPLETED'))?.payload).toEqual({ finalResult: false });
    expect(readWorkflowEvent(entry(2, 'COMPENSATION_STARTED', { failedStep: 7 }))?.payload).toEqual({ failedStep: null, error: null });
  });

  it('reads nothing from a type the service does not write, or from a step’s event naming no step', () => {
    expect(readWorkflowEvent(entry(2, 'STEP_SKIPPED', { step: 'check' }))).toBeNull();
    expect(readWorkflowEvent(entry(2, 'POLICY_EVALUATED', { result: true }))).toBeNull();
    expect(readWorkflowEvent(entry(2, 'toString'))).toBeNull();
  });

  it('lets such an entry take its sequence in replay, and nothing else', () => {
    const state = replay(DEFINITION, [entry(1, 'WORKFLOW_STARTED'), entry(2, 'STEP_SKIPPED', { step: 'check' }), entry(3, 'POLICY_EVALUATED', { result: true })]);
    expect(state).toMatchObject({ status: 'RUNNING', currentStep: 'check', nextSequence: 4 });
    expect(state.steps[0]).toMatchObject({ status: 'PENDING', result: null });
  });
});
