import { wellFormedPrefix } from '../kernel/index.js';

/** Event types of a workflow's log (the interface names the first four). */
export const WorkflowEventType = {
  STARTED: 'WORKFLOW_STARTED',
  /** A step's rule was evaluated: `{step, policyModule, policyFunction, result, executionTimeMs}`. */
  POLICY_EVALUATED: 'POLICY_EVALUATED',
  COMPLETED: 'WORKFLOW_COMPLETED',
  COMPENSATION_STARTED: 'COMPENSATION_STARTED',
  /** A compensation rule ran for a completed step: `{step, policyModule, policyFunction, result, executionTimeMs}`. */
  COMPENSATION_COMPLETED: 'COMPENSATION_COMPLETED',
  SIGNAL_AWAITED: 'SIGNAL_AWAITED',
  SIGNAL_RECEIVED: 'SIGNAL_RECEIVED',
  SIGNAL_TIMED_OUT: 'SIGNAL_TIMED_OUT',
  /** Appended by a cancel request; the runner then compensates and ends with WORKFLOW_CANCELLED. */
  CANCEL_REQUESTED: 'WORKFLOW_CANCEL_REQUESTED',
  FAILED: 'WORKFLOW_FAILED',
  CANCELLED: 'WORKFLOW_CANCELLED',
} as const;

export type WorkflowEventTypeValue = (typeof WorkflowEventType)[keyof typeof WorkflowEventType];

const TERMINAL_EVENTS = new Set<string>([WorkflowEventType.COMPLETED, WorkflowEventType.FAILED, WorkflowEventType.CANCELLED]);

/** Whether the event ends its workflow. Only the runner appends one, and nothing follows it. */
export function isTerminalEvent(eventType: string): boolean {
  return TERMINAL_EVENTS.has(eventType);
}

/**
 * The longest log a workflow reads back. A workflow has at most 2,000 steps (PL4009) and a step adds
 * at most three events, so no log comes near it.
 */
export const MAX_WORKFLOW_LOG_EVENTS = 100_000;

/** Longest error text an event keeps (a rule's `Fail with` text may be megabytes long). */
export const MAX_EVENT_ERROR_LENGTH = 2000;

/** An error text as an event stores it: at most MAX_EVENT_ERROR_LENGTH characters. */
export function eventError(text: string): string {
  if (text.length <= MAX_EVENT_ERROR_LENGTH) return text;
  return `${wellFormedPrefix(text, MAX_EVENT_ERROR_LENGTH - 1)}…`;
}
