import type { WorkflowSignature } from '../language/index.js';
import { decideNext, eventAfterRun, hasNext, type StepEvaluation, type StepRun } from './workflow-decision.js';
import { WorkflowError, WorkflowErrorCode } from './workflow-errors.js';
import { eventError, isTerminalEvent, MAX_WORKFLOW_LOG_EVENTS, WorkflowEventType as E, type WorkflowEvent, type WorkflowEventBody } from './workflow-events.js';
import { isTerminal, WorkflowReplay, type WorkflowState } from './workflow-replay.js';
import type { StoredWorkflowEvent, WorkflowRecord, WorkflowRepository } from './workflow-store.js';
import { endedSummary, storeSummary, summaryOf } from './workflow-summary.js';

/** How far one call of `advance` takes a workflow before it hands the worker back. */
export interface WorkflowSlice {
  /** Events it appends at most. */
  maxEvents: number;
  /** Milliseconds after which it begins no further step (a step already begun is finished; the first is always begun). */
  maxMs: number;
}

/** What a slice did. */
export interface Advanced {
  /** The state after it; null when the tenant has no such workflow. */
  state: WorkflowState | null;
  /** Whether the workflow has a next event to decide: the slice ended before it waits or ends. */
  more: boolean;
}

export interface WorkflowRunnerDeps {
  workflows: WorkflowRepository;
  /**
   * The workflow's definition in its pinned module version. A WorkflowError 422
   * `ERR_WORKFLOW_DEFINITION_UNAVAILABLE` says the version does not compile (and never will: the
   * source is fixed); the runner then ends the workflow as failed.
   */
  definition(tenantId: string, record: WorkflowRecord): Promise<WorkflowSignature>;
  /**
   * Evaluates a rule of the pinned module version through the one evaluation path (audited,
   * counted in the rollups); `args` in the rule's parameter order.
   */
  evaluate(tenantId: string, record: WorkflowRecord, rule: string, args: unknown[]): Promise<StepEvaluation>;
  /**
   * Told of the terminal event once it is stored and before the workflow is marked finished (the
   * service queues its webhooks): a process that dies in between leaves an ended log unmarked,
   * which the resume sweep announces and marks. So it may hear of one end more than once.
   */
  announceEnd?(tenantId: string, record: WorkflowRecord, ended: StoredWorkflowEvent): Promise<void>;
  /** Asks for `timeOut(step)` to run after the delay (a BullMQ delayed job in the service). */
  scheduleTimeout(tenantId: string, workflowId: string, step: string, delayMs: number): Promise<void>;
  /** Milliseconds in a minute of a `within` limit; tests shorten it. Default 60,000. */
  minuteMs?: number;
  /** Replayed logs this process keeps between slices, so a slice reads only the events after them. Default 256. */
  replayCacheSize?: number;
  now?: () => Date;
}

export interface WorkflowRunner {
  /**
   * Runs the workflow until it waits for a signal, ends, or the slice is used up (then `more`);
   * safe to call any number of times, from any number of workers.
   */
  advance(tenantId: string, workflowId: string, slice?: WorkflowSlice): Promise<Advanced>;
  /** A step's time limit passed: if it still waits, its answer is false. The workflow goes on at its next run. */
  timeOut(tenantId: string, workflowId: string, step: string): Promise<void>;
}

/** Without a slice a call runs until the workflow waits or ends. */
const WHOLE: WorkflowSlice = { maxEvents: Number.POSITIVE_INFINITY, maxMs: Number.POSITIVE_INFINITY };

/**
 * Races lost in a row for the next sequence before giving up (the job is retried). Each lost race
 * means another writer appended an event, so this is reached only by a log that another writer
 * keeps extending as fast as this one reads it; appends of this runner never count.
 */
const MAX_LOST_RACES = 1000;

/** A workflow as a slice works on it: its record, definition and log replayed so far. */
interface Loaded {
  key: string;
  record: WorkflowRecord;
  definition: WorkflowSignature;
  log: WorkflowReplay;
}

/** The next event to append, and what to do once it is stored. */
interface Next {
  event: WorkflowEventBody;
  after?: () => Promise<void>;
}

/**
 * Advances a workflow one event at a time: replay the log, decide what comes next (`decideNext`),
 * run the rule it asks for if any, and append the event at the next sequence. Progress is only the
 * log: a worker that dies between two appends leaves a log another worker replays and continues,
 * and the unique sequence makes a second writer's append fail instead of forking the log (it then
 * reads the events it missed and decides again).
 */
export function createWorkflowRunner(deps: WorkflowRunnerDeps): WorkflowRunner {
  const now = deps.now ?? (() => new Date());
  const minuteMs = deps.minuteMs ?? 60_000;
  const cacheSize = deps.replayCacheSize ?? 256;
  /** Least recently used first. An entry is taken out while a slice works on it. */
  const cache = new Map<string, Loaded>();

  /** Reads the events appended since the log was last replayed (all of them the first time). */
  async function catchUp(tenantId: string, workflowId: string, log: WorkflowReplay): Promise<void> {
    log.apply(await deps.workflows.events(tenantId, workflowId, log.state.nextSequence, MAX_WORKFLOW_LOG_EVENTS));
  }

  /** The workflow from the cache or the store, its log read up to now; null when the tenant has none or it has just been failed. */
  async function load(tenantId: string, workflowId: string): Promise<Loaded | null> {
    const key = `${tenantId}\u0000${workflowId}`;
    const cached = cache.get(key);
    if (cached !== undefined) {
      cache.delete(key);
      await catchUp(tenantId, workflowId, cached.log);
      return cached;
    }
    const record = await deps.workflows.get(tenantId, workflowId);
    if (record === null) return null;
    let definition: WorkflowSignature;
    try {
      definition = await deps.definition(tenantId, record);
    } catch (error) {
      if (!(error instanceof WorkflowError && error.status === 422 && error.code === WorkflowErrorCode.DEFINITION_UNAVAILABLE)) throw error;
      await failUncompilable(tenantId, record, error.message);
      return null;
    }
    const log = new WorkflowReplay(definition);
    await catchUp(tenantId, workflowId, log);
    return { key, record, definition, log };
  }

  function keep(loaded: Loaded): void {
    if (isTerminal(loaded.log.state.status)) return;
    cache.set(loaded.key, loaded);
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
  }

  /**
   * The module version does not compile any more (a check added since it was deployed refuses
   * it): no step can be run or compensated, so the workflow ends failed with the reason, instead
   * of being retried for ever.
   */
  async function failUncompilable(tenantId: string, record: WorkflowRecord, reason: string): Promise<void> {
    const { workflowId } = record;
    const last = await deps.workflows.lastEvent(tenantId, workflowId);
    if (last !== null && isTerminalEvent(last.eventType)) return;
    const event: WorkflowEvent = {
      sequence: (last?.sequence ?? 0) + 1,
      eventType: E.FAILED,
      payload: { failedStep: null, error: eventError(reason) },
      occurredAt: now().toISOString(),
    };
    // A lost race is another writer's event: the next run reads it and decides again.
    if ((await deps.workflows.append(tenantId, workflowId, [event])) !== 1) return;
    await deps.announceEnd?.(tenantId, record, event);
    await storeSummary(deps.workflows, tenantId, workflowId, endedSummary(event));
  }

  /** Runs a rule of the pinned version on the workflow parameters `run.args` names. */
  function runRule(tenantId: string, record: WorkflowRecord, run: StepRun): Promise<StepEvaluation> {
    return deps.evaluate(tenantId, record, run.rule, run.args.map((name) => record.context[name]));
  }

  /** The next event, decided from the log (running the rule it asks for), or null when the workflow waits or has ended. */
  async function next(tenantId: string, { record, definition, log }: Loaded): Promise<Next | null> {
    const decision = decideNext(log, definition, { at: now(), minuteMs });
    if (decision === null) return null;
    if (decision.kind === 'run') return { event: eventAfterRun(decision.run, await runRule(tenantId, record, decision.run), record.policyModule) };
    const { timeout } = decision;
    if (timeout === undefined) return { event: decision.event };
    return { event: decision.event, after: () => deps.scheduleTimeout(tenantId, record.workflowId, timeout.step, timeout.delayMs) };
  }

  async function advance(tenantId: string, workflowId: string, slice: WorkflowSlice = WHOLE): Promise<Advanced> {
    const startedAt = performance.now();
    const loaded = await load(tenantId, workflowId);
    if (loaded === null) return { state: null, more: false };
    const { log } = loaded;
    let appended = 0;
    let lostRaces = 0;
    for (;;) {
      if (!hasNext(log.state)) break;
      // A slice always appends one event, however long reading the log took: each slice makes progress.
      if (appended > 0 && (appended >= slice.maxEvents || performance.now() - startedAt >= slice.maxMs)) {
        keep(loaded);
        return { state: log.state, more: true };
      }
      const decided = await next(tenantId, loaded);
      if (decided === null) break;
      const event: WorkflowEvent = { sequence: log.state.nextSequence, ...decided.event, occurredAt: now().toISOString() };
      if ((await deps.workflows.append(tenantId, workflowId, [event])) === 1) {
        log.apply([event]);
        appended += 1;
        lostRaces = 0;
        await decided.after?.();
        // Separate writes (the end's announcement, the summary, the finished mark after a terminal
        // event): if this process dies before them, the resume sweep finds the summary behind the log
        // and has it written again, announcing an end it marks.
        if (isTerminalEvent(event.eventType)) await deps.announceEnd?.(tenantId, loaded.record, event);
        await storeSummary(deps.workflows, tenantId, workflowId, summaryOf(log.state));
        continue;
      }
      // Zero stored: another writer appended this sequence first; read its events and decide again.
      lostRaces += 1;
      if (lostRaces >= MAX_LOST_RACES) throw new Error(`workflow \`${workflowId}\` kept changing under this worker: ${MAX_LOST_RACES} races lost in a row`);
      await catchUp(tenantId, workflowId, log);
    }
    // A run that appended nothing (queued by the resume sweep, or by a writer whose summary was
    // lost) stores the summary of the log it read: a no-op when the stored one is as recent.
    if (appended === 0) await storeSummary(deps.workflows, tenantId, workflowId, summaryOf(log.state));
    keep(loaded);
    return { state: log.state, more: false };
  }

  return {
    advance,
    async timeOut(tenantId, workflowId, stepName) {
      const loaded = await load(tenantId, workflowId);
      if (loaded === null) return;
      const { state } = loaded.log;
      const index = state.steps.findIndex((s) => s.name === stepName);
      const step = loaded.definition.steps[index];
      // A workflow being cancelled is compensated instead; its awaited step does not time out.
      if (step?.kind === 'await' && state.steps[index]!.status === 'WAITING' && !isTerminal(state.status) && !state.cancelRequested) {
        const event: WorkflowEvent = {
          sequence: state.nextSequence,
          eventType: E.SIGNAL_TIMED_OUT,
          payload: { step: stepName, signal: step.signal },
          occurredAt: now().toISOString(),
        };
        // A lost race is a signal or a cancel that came first: the step no longer waits.
        if ((await deps.workflows.append(tenantId, workflowId, [event])) === 1) {
          loaded.log.apply([event]);
          await storeSummary(deps.workflows, tenantId, workflowId, summaryOf(loaded.log.state));
        }
      }
      keep(loaded);
    },
  };
}
