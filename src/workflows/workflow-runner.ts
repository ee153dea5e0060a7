import type { WorkflowSignature, WorkflowStepInfo } from '../language/index.js';
import type { WorkflowEvent, WorkflowRecord, WorkflowRepository } from '../store/index.js';
import { isTerminalEvent, MAX_WORKFLOW_LOG_EVENTS, WorkflowEventType as E } from './workflow-events.js';
import { isTerminal, replay, type WorkflowState } from './workflow-replay.js';

/** A step rule's answer: its Bool result, or why it could not give one. */
export type StepEvaluation = { ok: true; result: boolean; executionTimeMs: number } | { ok: false; error: string; executionTimeMs: number };

export interface WorkflowRunnerDeps {
  workflows: WorkflowRepository;
  /** The workflow's definition in its pinned module version. */
  definition(tenantId: string, record: WorkflowRecord): Promise<WorkflowSignature>;
  /**
   * Evaluates a rule of the pinned module version through the one evaluation path (audited,
   * counted in the rollups); `args` in the rule's parameter order.
   */
  evaluate(tenantId: string, record: WorkflowRecord, rule: string, args: unknown[]): Promise<StepEvaluation>;
  /** Asks for `timedOut(step)` to run after the delay (a BullMQ delayed job in the service). */
  scheduleTimeout(tenantId: string, workflowId: string, step: string, delayMs: number): Promise<void>;
  /** Milliseconds in a minute of a `within` limit; tests shorten it. Default 60,000. */
  minuteMs?: number;
  now?: () => Date;
}

export interface WorkflowRunner {
  /** Runs the workflow until it waits for a signal or ends; safe to call any number of times. */
  advance(tenantId: string, workflowId: string): Promise<WorkflowState | null>;
  /** A step's time limit passed: if it still waits, its result is false; then the workflow goes on. */
  timedOut(tenantId: string, workflowId: string, step: string): Promise<WorkflowState | null>;
}

/** Rounds of losing the race for the next sequence before giving up (the job is retried). */
const MAX_ROUNDS = 1000;

/**
 * Advances a workflow one event at a time: read the log, replay it, decide the next event, and
 * append it at the next sequence. Progress is only the log: a worker that dies between two
 * appends leaves a log another worker replays and continues, and the unique sequence makes a
 * second writer's append fail instead of forking the log (it then reads again).
 */
export function createWorkflowRunner(deps: WorkflowRunnerDeps): WorkflowRunner {
  const now = deps.now ?? (() => new Date());
  const minuteMs = deps.minuteMs ?? 60_000;

  async function load(tenantId: string, workflowId: string) {
    const record = await deps.workflows.get(tenantId, workflowId);
    if (record === null) return null;
    const definition = await deps.definition(tenantId, record);
    const events = await deps.workflows.events(tenantId, workflowId, 0, MAX_WORKFLOW_LOG_EVENTS);
    return { record, definition, events, state: replay(definition, events) };
  }

  /** `args` names workflow parameters, one per rule parameter in order: their values are the rule's input. */
  function runRule(tenantId: string, record: WorkflowRecord, rule: string, args: readonly string[]): Promise<StepEvaluation> {
    return deps.evaluate(tenantId, record, rule, args.map((name) => record.context[name]));
  }

  /** The next event, or null when the workflow waits or has ended. */
  async function decide(
    tenantId: string,
    record: WorkflowRecord,
    definition: WorkflowSignature,
    state: WorkflowState,
  ): Promise<{ type: string; payload: Record<string, unknown>; after?: () => Promise<void> } | null> {
    if (isTerminal(state.status)) return null;
    if (state.cancelRequested && !state.compensating) {
      return { type: E.COMPENSATION_STARTED, payload: { failedStep: state.currentStep, error: 'cancelled' } };
    }
    if (state.compensating) {
      // Completed rule steps with a compensation, undone in reverse order, each once.
      const pending = [...definition.steps]
        .reverse()
        .find((step): step is Extract<WorkflowStepInfo, { kind: 'rule' }> => {
          const done = state.steps.find((s) => s.name === step.name);
          return step.kind === 'rule' && step.compensate !== null && done?.status === 'DONE';
        });
      if (pending !== undefined && pending.compensate !== null) {
        const outcome = await runRule(tenantId, record, pending.compensate.rule, pending.compensate.args);
        return {
          type: E.COMPENSATION_COMPLETED,
          payload: {
            step: pending.name,
            policyModule: record.policyModule,
            policyFunction: pending.compensate.rule,
            result: outcome.ok ? outcome.result : false,
            executionTimeMs: Math.round(outcome.executionTimeMs),
            ...(outcome.ok ? {} : { error: outcome.error }),
          },
        };
      }
      return state.cancelRequested
        ? { type: E.CANCELLED, payload: {} }
        : { type: E.FAILED, payload: { failedStep: state.failedStep, error: state.error } };
    }
    // A step that answered false ends the workflow at once.
    if (state.steps.some((step) => step.status === 'DONE' && step.result === false)) return { type: E.COMPLETED, payload: { finalResult: false } };
    const index = state.steps.findIndex((step) => step.status !== 'DONE');
    if (index < 0) return { type: E.COMPLETED, payload: { finalResult: true } };
    const step = definition.steps[index]!;
    if (step.kind === 'await') {
      if (state.steps[index]!.status === 'WAITING') return null;
      const delayMs = step.withinMinutes === null ? null : step.withinMinutes * minuteMs;
      const timeoutAt = delayMs === null ? null : new Date(now().getTime() + delayMs).toISOString();
      return {
        type: E.SIGNAL_AWAITED,
        payload: { step: step.name, signal: step.signal, timeoutAt },
        ...(delayMs === null ? {} : { after: () => deps.scheduleTimeout(tenantId, record.workflowId, step.name, delayMs) }),
      };
    }
    const outcome = await runRule(tenantId, record, step.rule, step.args);
    if (!outcome.ok) return { type: E.COMPENSATION_STARTED, payload: { failedStep: step.name, error: outcome.error } };
    return {
      type: E.POLICY_EVALUATED,
      payload: {
        step: step.name,
        policyModule: record.policyModule,
        policyFunction: step.rule,
        result: outcome.result,
        executionTimeMs: Math.round(outcome.executionTimeMs),
      },
    };
  }

  async function advance(tenantId: string, workflowId: string): Promise<WorkflowState | null> {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const loaded = await load(tenantId, workflowId);
      if (loaded === null) return null;
      const { record, definition, state } = loaded;
      const next = await decide(tenantId, record, definition, state);
      if (next === null) return state;
      const event: WorkflowEvent = { sequence: state.nextSequence, eventType: next.type, payload: next.payload, occurredAt: now().toISOString() };
      // Zero stored: another worker appended this sequence first; read its event and decide again.
      if ((await deps.workflows.append(tenantId, workflowId, [event])) !== 1) continue;
      await next.after?.();
      // A separate write: if this process dies before it, the resume sweep finds the log ended and marks it.
      if (isTerminalEvent(event.eventType)) await deps.workflows.markFinished(tenantId, workflowId, event.occurredAt);
    }
    throw new Error(`workflow \`${workflowId}\` kept changing under this worker for ${MAX_ROUNDS} rounds`);
  }

  return {
    advance,
    async timedOut(tenantId, workflowId, stepName) {
      const loaded = await load(tenantId, workflowId);
      if (loaded === null) return null;
      const step = loaded.state.steps.find((s) => s.name === stepName);
      // A workflow being cancelled is compensated instead; its awaited step does not time out.
      if (step?.status === 'WAITING' && !isTerminal(loaded.state.status) && !loaded.state.cancelRequested) {
        const signal = loaded.definition.steps.find((s) => s.name === stepName);
        const event: WorkflowEvent = {
          sequence: loaded.state.nextSequence,
          eventType: E.SIGNAL_TIMED_OUT,
          payload: { step: stepName, signal: signal?.kind === 'await' ? signal.signal : null },
          occurredAt: now().toISOString(),
        };
        await deps.workflows.append(tenantId, workflowId, [event]);
      }
      return advance(tenantId, workflowId);
    },
  };
}
