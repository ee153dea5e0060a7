import { MAX_WITHIN_MINUTES, type WorkflowSignature } from '../language/index.js';
import { eventError, WorkflowEventType as E, type WorkflowEventBody } from './workflow-events.js';
import { isTerminal, type WorkflowReplay, type WorkflowState } from './workflow-replay.js';

/** A step rule's answer: its Bool result, or why it could not give one. */
export type StepEvaluation = { ok: true; result: boolean; executionTimeMs: number } | { ok: false; error: string; executionTimeMs: number };

/** A rule to run before the next event can be known: a step's own, or the compensation of a completed step. */
export interface StepRun {
  purpose: 'step' | 'compensation';
  step: string;
  rule: string;
  /** Workflow parameters, one per rule parameter in order: their values are the rule's input. */
  args: readonly string[];
}

/** What comes next in a workflow whose log has a next event. */
export type WorkflowDecision =
  /** Append the event; with `timeout`, an awaited step's time limit is scheduled once it is stored. */
  | { kind: 'append'; event: WorkflowEventBody; timeout?: { step: string; delayMs: number } }
  /** Run the rule; the event is what `eventAfterRun` makes of its answer. */
  | { kind: 'run'; run: StepRun };

/** What a decision may depend on beside the log: the time it is taken at, and a `within` minute's length. */
export interface DecisionClock {
  at: Date;
  minuteMs: number;
}

/** Whether the log has a next event for the runner to decide (it neither ended nor waits). */
export function hasNext(state: WorkflowState): boolean {
  return !isTerminal(state.status) && state.status !== 'WAITING';
}

/**
 * The next step of a workflow, from its replayed log alone: the same log, definition and clock
 * always give the same decision, so any worker that replays the log decides alike. Null when the
 * workflow waits for a signal or has ended. Running a rule is not decided here but asked for.
 */
export function decideNext(log: WorkflowReplay, definition: WorkflowSignature, clock: DecisionClock): WorkflowDecision | null {
  const state = log.state;
  if (!hasNext(state)) return null;
  if (state.cancelRequested && !state.compensating) {
    return append({ eventType: E.COMPENSATION_STARTED, payload: { failedStep: state.currentStep, error: 'cancelled' } });
  }
  if (state.compensating) {
    // Completed rule steps with a compensation, undone in reverse order, each once.
    const index = log.nextCompensation();
    const pending = index < 0 ? undefined : definition.steps[index];
    if (pending?.kind === 'rule' && pending.compensate !== null) {
      return { kind: 'run', run: { purpose: 'compensation', step: pending.name, rule: pending.compensate.rule, args: pending.compensate.args } };
    }
    return append(
      state.cancelRequested
        ? { eventType: E.CANCELLED, payload: {} }
        : { eventType: E.FAILED, payload: { failedStep: state.failedStep, error: state.error } },
    );
  }
  // A step that answered false ends the workflow at once.
  if (log.hasFalseAnswer()) return append({ eventType: E.COMPLETED, payload: { finalResult: false } });
  const index = log.firstUndoneStep();
  if (index < 0) return append({ eventType: E.COMPLETED, payload: { finalResult: true } });
  const step = definition.steps[index]!;
  if (step.kind === 'rule') return { kind: 'run', run: { purpose: 'step', step: step.name, rule: step.rule, args: step.args } };
  if (step.withinMinutes === null) return append({ eventType: E.SIGNAL_AWAITED, payload: { step: step.name, signal: step.signal, timeoutAt: null } });
  // The language bounds `within` (PL4008); a definition past the bound fails its step rather than the run.
  const delayMs = step.withinMinutes * clock.minuteMs;
  const timeoutAt = new Date(clock.at.getTime() + delayMs);
  if (!(step.withinMinutes <= MAX_WITHIN_MINUTES) || Number.isNaN(timeoutAt.getTime())) {
    return append({
      eventType: E.COMPENSATION_STARTED,
      payload: { failedStep: step.name, error: `the time limit of ${step.withinMinutes} minutes is longer than 365 days` },
    });
  }
  return {
    kind: 'append',
    event: { eventType: E.SIGNAL_AWAITED, payload: { step: step.name, signal: step.signal, timeoutAt: timeoutAt.toISOString() } },
    timeout: { step: step.name, delayMs },
  };
}

/**
 * The event a rule's answer makes: a compensation completed (whatever it answered), a step
 * evaluated, or, when a step's rule could not answer, compensation started.
 */
export function eventAfterRun(run: StepRun, outcome: StepEvaluation, policyModule: string): WorkflowEventBody {
  const executionTimeMs = Math.round(outcome.executionTimeMs);
  if (run.purpose === 'compensation') {
    return {
      eventType: E.COMPENSATION_COMPLETED,
      payload: {
        step: run.step,
        policyModule,
        policyFunction: run.rule,
        result: outcome.ok ? outcome.result : false,
        executionTimeMs,
        ...(outcome.ok ? {} : { error: eventError(outcome.error) }),
      },
    };
  }
  if (!outcome.ok) return { eventType: E.COMPENSATION_STARTED, payload: { failedStep: run.step, error: eventError(outcome.error) } };
  return { eventType: E.POLICY_EVALUATED, payload: { step: run.step, policyModule, policyFunction: run.rule, result: outcome.result, executionTimeMs } };
}

function append(event: WorkflowEventBody): WorkflowDecision {
  return { kind: 'append', event };
}
