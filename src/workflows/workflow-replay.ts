import type { WorkflowSignature } from '../language/index.js';
import { readWorkflowEvent, WorkflowEventType as E, type ReadWorkflowEvent, type StoredWorkflowEvent } from './workflow-events.js';

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
  /** When its terminal event occurred; null until the workflow ended. */
  endedAt: string | null;
  /** The sequence the next event takes. */
  nextSequence: number;
}

const TERMINAL = new Set<WorkflowStatus>(['COMPLETED', 'FAILED', 'CANCELLED']);

export function isTerminal(status: WorkflowStatus): boolean {
  return TERMINAL.has(status);
}

/** A step that counts as behind the workflow: answered, or answered and undone. */
function isClosed(step: StepState): boolean {
  return step.status === 'DONE' || step.status === 'COMPENSATED';
}

/**
 * A log replayed so far, which takes further events as they are appended. Every event costs the
 * same small amount whatever the log's length, and so does each question the runner asks of the
 * state (the first open step, whether a step answered false, the next compensation), so a
 * workflow of thousands of steps is run in time proportional to its log, not to its square.
 */
export class WorkflowReplay {
  readonly state: WorkflowState;
  private readonly definition: WorkflowSignature;
  private readonly indexOf: Map<string, number>;
  /** The first step neither done nor compensated (steps.length when there is none). */
  private firstOpen = 0;
  /** Steps DONE with the answer false. */
  private answeredFalse = 0;
  /** No step above this index is DONE with a compensation still to run. */
  private compensableBelow: number;

  constructor(definition: WorkflowSignature) {
    this.definition = definition;
    const steps: StepState[] = definition.steps.map((step) => ({ name: step.name, kind: step.kind, status: 'PENDING', result: null }));
    this.indexOf = new Map(steps.map((step, i) => [step.name, i]));
    this.compensableBelow = steps.length - 1;
    this.state = {
      status: 'RUNNING',
      currentStep: null,
      steps,
      finalResult: null,
      error: null,
      failedStep: null,
      compensating: false,
      cancelRequested: false,
      endedAt: null,
      nextSequence: 1,
    };
    this.derive();
  }

  /**
   * Takes the entries that follow the log replayed so far; entries already taken are skipped. Each
   * is read once, here: an entry that tells nothing (see `readWorkflowEvent`) only takes its sequence.
   */
  apply(entries: readonly StoredWorkflowEvent[]): this {
    for (const entry of entries) {
      if (entry.sequence < this.state.nextSequence) continue;
      this.state.nextSequence = entry.sequence + 1;
      const event = readWorkflowEvent(entry);
      if (event !== null) this.take(event);
    }
    this.derive();
    return this;
  }

  /** The index of the first step not yet done, -1 when every step is (forward progress only). */
  firstUndoneStep(): number {
    return this.firstOpen < this.state.steps.length ? this.firstOpen : -1;
  }

  /** Whether a step answered false (which ends the workflow at once). */
  hasFalseAnswer(): boolean {
    return this.answeredFalse > 0;
  }

  /** The index of the latest done rule step whose compensation has not run, -1 when none is left. */
  nextCompensation(): number {
    const { steps } = this.state;
    while (this.compensableBelow >= 0) {
      const step = this.definition.steps[this.compensableBelow]!;
      if (step.kind === 'rule' && step.compensate !== null && steps[this.compensableBelow]!.status === 'DONE') return this.compensableBelow;
      this.compensableBelow -= 1;
    }
    return -1;
  }

  private setStep(index: number, status: StepStatus, result: boolean | null): void {
    const step = this.state.steps[index]!;
    if (step.status === 'DONE' && step.result === false) this.answeredFalse -= 1;
    step.status = status;
    step.result = result;
    if (status === 'DONE' && result === false) this.answeredFalse += 1;
    if (isClosed(step)) {
      while (this.firstOpen < this.state.steps.length && isClosed(this.state.steps[this.firstOpen]!)) this.firstOpen += 1;
    } else {
      this.firstOpen = Math.min(this.firstOpen, index);
    }
    if (status === 'DONE') this.compensableBelow = Math.max(this.compensableBelow, index);
  }

  private take(event: ReadWorkflowEvent): void {
    const state = this.state;
    switch (event.eventType) {
      case E.POLICY_EVALUATED:
        this.answer(event.payload.step, event.payload.result);
        break;
      case E.SIGNAL_RECEIVED:
        this.answer(event.payload.step, event.payload.approved);
        break;
      case E.SIGNAL_TIMED_OUT:
        this.answer(event.payload.step, false);
        break;
      case E.SIGNAL_AWAITED: {
        const index = this.indexOf.get(event.payload.step);
        if (index !== undefined) this.setStep(index, 'WAITING', state.steps[index]!.result);
        break;
      }
      case E.CANCEL_REQUESTED:
        state.cancelRequested = true;
        break;
      case E.COMPENSATION_STARTED: {
        state.compensating = true;
        state.failedStep = event.payload.failedStep;
        state.error = event.payload.error;
        const failed = state.failedStep === null ? undefined : this.indexOf.get(state.failedStep);
        if (failed !== undefined && state.steps[failed]!.status !== 'DONE') this.setStep(failed, 'FAILED', state.steps[failed]!.result);
        break;
      }
      case E.COMPENSATION_COMPLETED: {
        const index = this.indexOf.get(event.payload.step);
        if (index !== undefined) this.setStep(index, 'COMPENSATED', state.steps[index]!.result);
        break;
      }
      case E.COMPLETED:
        state.status = 'COMPLETED';
        state.finalResult = event.payload.finalResult;
        state.endedAt = event.occurredAt;
        break;
      case E.FAILED:
        state.status = 'FAILED';
        state.endedAt = event.occurredAt;
        break;
      case E.CANCELLED:
        state.status = 'CANCELLED';
        state.endedAt = event.occurredAt;
        break;
      case E.STARTED:
        break;
    }
  }

  /** A step answered (a rule's result, a signal's approval, false for a time-out); a step the definition lacks is passed over. */
  private answer(step: string, result: boolean): void {
    const index = this.indexOf.get(step);
    if (index !== undefined) this.setStep(index, 'DONE', result);
  }

  /** The status and current step that follow from the steps (a terminal event's status stands). */
  private derive(): void {
    const state = this.state;
    if (isTerminal(state.status)) {
      state.currentStep = null;
      return;
    }
    const current = state.steps[this.firstOpen];
    state.currentStep = current?.name ?? null;
    state.status = current?.status === 'WAITING' && !state.cancelRequested && !state.compensating ? 'WAITING' : 'RUNNING';
  }
}

/**
 * Replays a log from its start. The API (GET a workflow) and the worker (what to do next) both use
 * this one fold, so they can never disagree about a workflow's state.
 */
export function replay(definition: WorkflowSignature, entries: readonly StoredWorkflowEvent[]): WorkflowState {
  return new WorkflowReplay(definition).apply(entries).state;
}
