import { wellFormedPrefix } from '../kernel/index.js';

/** Event types of a workflow's log (the interface names the first four). */
export const WorkflowEventType = {
  STARTED: 'WORKFLOW_STARTED',
  /** A step's rule was evaluated. */
  POLICY_EVALUATED: 'POLICY_EVALUATED',
  COMPLETED: 'WORKFLOW_COMPLETED',
  COMPENSATION_STARTED: 'COMPENSATION_STARTED',
  /** A compensation rule ran for a completed step. */
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

/** A payload with nothing in it. */
type NoFields = Record<never, never>;

/** Why compensation began, or why the workflow failed: the step and its error (`cancelled` for a cancel). */
type Failure = { failedStep: string | null; error: string | null };

/**
 * What a workflow's state is rebuilt from, by event type: the part of each payload that replay
 * and the resume sweep read back.
 */
type WorkflowEventFacts = {
  [WorkflowEventType.STARTED]: NoFields;
  [WorkflowEventType.POLICY_EVALUATED]: { step: string; result: boolean };
  [WorkflowEventType.COMPLETED]: { finalResult: boolean };
  [WorkflowEventType.COMPENSATION_STARTED]: Failure;
  [WorkflowEventType.COMPENSATION_COMPLETED]: { step: string };
  /** `timeoutAt` is null for an `Await` without `within`. */
  [WorkflowEventType.SIGNAL_AWAITED]: { step: string; timeoutAt: string | null };
  [WorkflowEventType.SIGNAL_RECEIVED]: { step: string; approved: boolean };
  [WorkflowEventType.SIGNAL_TIMED_OUT]: { step: string };
  [WorkflowEventType.CANCEL_REQUESTED]: NoFields;
  [WorkflowEventType.FAILED]: NoFields;
  [WorkflowEventType.CANCELLED]: NoFields;
};

/** A rule run for a step (its own rule or its compensation); `executionTimeMs` in whole milliseconds. */
type RuleRun = { policyModule: string; policyFunction: string; executionTimeMs: number };

/** What each payload carries beside its facts: detail for the history's readers, never read back. */
type WorkflowEventDetail = {
  [WorkflowEventType.STARTED]: NoFields;
  [WorkflowEventType.POLICY_EVALUATED]: RuleRun;
  [WorkflowEventType.COMPLETED]: NoFields;
  [WorkflowEventType.COMPENSATION_STARTED]: NoFields;
  /** `error` only when the compensation rule could not answer (its `result` is then false). */
  [WorkflowEventType.COMPENSATION_COMPLETED]: RuleRun & { result: boolean; error?: string };
  [WorkflowEventType.SIGNAL_AWAITED]: { signal: string };
  [WorkflowEventType.SIGNAL_RECEIVED]: { signal: string };
  [WorkflowEventType.SIGNAL_TIMED_OUT]: { signal: string };
  /** The actor who asked. */
  [WorkflowEventType.CANCEL_REQUESTED]: { by: string };
  [WorkflowEventType.FAILED]: Failure;
  [WorkflowEventType.CANCELLED]: NoFields;
};

/** Each event type's payload as the service writes it (the Events table of the workflows README). */
type WorkflowEventPayloads = { [T in WorkflowEventTypeValue]: WorkflowEventFacts[T] & WorkflowEventDetail[T] };

/** An event before the log numbers and dates it: its type names its payload. */
export type WorkflowEventBody = { [T in WorkflowEventTypeValue]: { eventType: T; payload: WorkflowEventPayloads[T] } }[WorkflowEventTypeValue];

/** Where an entry stands in its log: numbered `sequence` 1, 2, … without gaps. */
interface Logged {
  sequence: number;
  occurredAt: string;
}

/** One event of a workflow's log as the service appends it. */
export type WorkflowEvent = WorkflowEventBody & Logged;

/**
 * One entry of a workflow's log as the store keeps it and the events route shows it: any type, any
 * JSON object. What the service wrote is a WorkflowEvent; reading it back goes through
 * `readWorkflowEvent`.
 */
export interface StoredWorkflowEvent extends Logged {
  eventType: string;
  payload: Record<string, unknown>;
}

/** An entry read back from the log: its type and the facts of its payload. */
export type ReadWorkflowEvent = { [T in WorkflowEventTypeValue]: Logged & { eventType: T; payload: WorkflowEventFacts[T] } }[WorkflowEventTypeValue];

type Payload = Record<string, unknown>;
const NO_FACTS: NoFields = {};

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A step's event names its step; one that does not is about no step of the workflow. */
const ofStep =
  <F>(facts: (payload: Payload, step: string) => F) =>
  (payload: Payload): F | null =>
    typeof payload.step === 'string' ? facts(payload, payload.step) : null;

/**
 * How each event type's facts are read from a stored payload. Lenient where the log always was:
 * an answer that is not `true` counts as false, a missing text as null.
 */
const FACT_READERS: { [T in WorkflowEventTypeValue]: (payload: Payload) => WorkflowEventFacts[T] | null } = {
  [WorkflowEventType.STARTED]: () => NO_FACTS,
  [WorkflowEventType.POLICY_EVALUATED]: ofStep((payload, step) => ({ step, result: payload.result === true })),
  [WorkflowEventType.COMPLETED]: (payload) => ({ finalResult: payload.finalResult === true }),
  [WorkflowEventType.COMPENSATION_STARTED]: (payload) => ({ failedStep: stringOrNull(payload.failedStep), error: stringOrNull(payload.error) }),
  [WorkflowEventType.COMPENSATION_COMPLETED]: ofStep((_, step) => ({ step })),
  [WorkflowEventType.SIGNAL_AWAITED]: ofStep((payload, step) => ({ step, timeoutAt: stringOrNull(payload.timeoutAt) })),
  [WorkflowEventType.SIGNAL_RECEIVED]: ofStep((payload, step) => ({ step, approved: payload.approved === true })),
  [WorkflowEventType.SIGNAL_TIMED_OUT]: ofStep((_, step) => ({ step })),
  [WorkflowEventType.CANCEL_REQUESTED]: () => NO_FACTS,
  [WorkflowEventType.FAILED]: () => NO_FACTS,
  [WorkflowEventType.CANCELLED]: () => NO_FACTS,
};

function isWorkflowEventType(eventType: string): eventType is WorkflowEventTypeValue {
  return Object.hasOwn(FACT_READERS, eventType);
}

function factsOf<T extends WorkflowEventTypeValue>(eventType: T, payload: Payload): WorkflowEventFacts[T] | null {
  return FACT_READERS[eventType](payload);
}

/**
 * A stored entry as the workflow reads it back, or null when it tells nothing: a type this service
 * does not write, or a step's event that names no step. Such an entry stays in the log (the events
 * route shows it as stored) and takes its sequence; nothing else follows from it.
 */
export function readWorkflowEvent(entry: StoredWorkflowEvent): ReadWorkflowEvent | null {
  const { sequence, eventType, payload, occurredAt } = entry;
  if (!isWorkflowEventType(eventType)) return null;
  const facts = factsOf(eventType, payload);
  // The facts were read by the reader of this very type, which the compiler cannot follow through the union.
  return facts === null ? null : ({ sequence, eventType, payload: facts, occurredAt } as ReadWorkflowEvent);
}

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
