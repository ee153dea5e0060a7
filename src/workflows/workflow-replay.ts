import type { WorkflowSignature } from '../language/index.js';
import type { WorkflowEvent } from '../store/index.js';
import { WorkflowEventType as E } from './workflow-events.js';

export const WORKFLOW_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

export type StepStatus = 'PENDING' | 'WAITING' | 'DONE' | 'FAILED' | 'COMPENSATED';

export interface StepState {
  name: string;
  kind: 'rule' | 'await';
  status: StepStatus;
  /** The rule's answer, the signal's `approved`, or false after a time-out; null until then. */
  result: boolean | null;
}

/** A workflow as its log says it is: rebuilt from the first event every time. */
export interface WorkflowState {
  status: WorkflowStatus;
  /** The step being run or awaited; null once the workflow ended or before it began. */
  currentStep: string | null;
  steps: StepState[];
  finalResult: boolean | null;
  /** Why compensation started (the failed step's error, or `cancelled`); null otherwise. */
  error: string | null;
  failedStep: string | null;
  compensating: boolean;
  cancelRequested: boolean;
  /** The sequence the next event takes. */
  nextSequence: number;
}

const TERMINAL = new Set<WorkflowStatus>(['COMPLETED', 'FAILED', 'CANCELLED']);

export function isTerminal(status: WorkflowStatus): boolean {
  return TERMINAL.has(status);
}

/**
 * Replays a log from its start. The API (GET a workflow) and the worker (what to do next) both use
 * this one function, so they can never disagree about a workflow's state.
 */
export function replay(definition: WorkflowSignature, events: readonly WorkflowEvent[]): WorkflowState {
  const steps: StepState[] = definition.steps.map((step) => ({ name: step.name, kind: step.kind, status: 'PENDING', result: null }));
  const byName = new Map(steps.map((step) => [step.name, step]));
  const state: WorkflowState = {
    status: 'RUNNING',
    currentStep: null,
    steps,
    finalResult: null,
    error: null,
    failedStep: null,
    compensating: false,
    cancelRequested: false,
    nextSequence: 1,
  };
  for (const event of events) {
    state.nextSequence = event.sequence + 1;
    const step = typeof event.payload.step === 'string' ? byName.get(event.payload.step) : undefined;
    switch (event.eventType) {
      case E.POLICY_EVALUATED:
      case E.SIGNAL_RECEIVED:
      case E.SIGNAL_TIMED_OUT:
        if (step) {
          step.status = 'DONE';
          step.result = event.eventType === E.POLICY_EVALUATED ? event.payload.result === true : event.eventType === E.SIGNAL_RECEIVED && event.payload.approved === true;
        }
        break;
      case E.SIGNAL_AWAITED:
        if (step) step.status = 'WAITING';
        break;
      case E.CANCEL_REQUESTED:
        state.cancelRequested = true;
        break;
      case E.COMPENSATION_STARTED: {
        state.compensating = true;
        state.failedStep = typeof event.payload.failedStep === 'string' ? event.payload.failedStep : null;
        state.error = typeof event.payload.error === 'string' ? event.payload.error : null;
        const failed = state.failedStep === null ? undefined : byName.get(state.failedStep);
        if (failed && failed.status !== 'DONE') failed.status = 'FAILED';
        break;
      }
      case E.COMPENSATION_COMPLETED:
        if (step) step.status = 'COMPENSATED';
        break;
      case E.COMPLETED:
        state.status = 'COMPLETED';
        state.finalResult = event.payload.finalResult === true;
        break;
      case E.FAILED:
        state.status = 'FAILED';
        break;
      case E.CANCELLED:
        state.status = 'CANCELLED';
        break;
    }
  }
  if (isTerminal(state.status)) return state;
  const current = steps.find((step) => step.status === 'PENDING' || step.status === 'WAITING' || step.status === 'FAILED');
  state.currentStep = current?.name ?? null;
  if (current?.status === 'WAITING' && !state.cancelRequested && !state.compensating) state.status = 'WAITING';
  return state;
}
