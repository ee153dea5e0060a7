import { isTerminalEvent, readWorkflowEvent, WorkflowEventType as E, type StoredWorkflowEvent } from './workflow-events.js';
import type { WorkflowRecord, WorkflowRepository } from './workflow-store.js';
import { endedSummary, storeSummary } from './workflow-summary.js';

export interface WorkflowResumerDeps {
  workflows: Pick<WorkflowRepository, 'listUnfinished' | 'lastEvent' | 'markFinished' | 'saveSummary' | 'get'>;
  /**
   * Queues a `workflow-run` job (with `timedOutStep`: that step's time limit has passed), unless
   * one queued this way for the workflow has not finished yet.
   */
  resume(tenantId: string, workflowId: string, timedOutStep?: string): Promise<void>;
  /** What the runner tells of an end (its `announceEnd`), for a log it finds ended but unmarked: before marking it. */
  announceEnd?(tenantId: string, record: WorkflowRecord, ended: StoredWorkflowEvent): Promise<void>;
  /** The runner's own time-limit job: a no-op while the one it scheduled still exists. */
  scheduleTimeout(tenantId: string, workflowId: string, step: string, delayMs: number): Promise<void>;
  /**
   * How long a log must have stood still before the sweep acts on it, so that it does not race a
   * job that is merely queued or running.
   */
  graceMs: number;
  /** Workflows one sweep reads. Default 500. */
  pageSize?: number;
  now?: () => Date;
}

/** What one sweep did. */
export interface WorkflowSweep {
  /** Where the next sweep starts: the last workflow read, or null when this one reached the end. */
  next: string | null;
  /** Unfinished workflows read. */
  read: number;
  /**
   * `workflow-run` jobs queued for workflows that were running, whose time limit has passed, or
   * whose stored summary is behind their log (the run stores it again).
   */
  resumed: number;
  /** Time limits not yet overdue whose job was scheduled again (a no-op where it still exists). */
  timeLimits: number;
  /** Workflows whose log had ended and that are now marked finished, with the ended log's summary. */
  finished: number;
}

export interface WorkflowResumer {
  /** Reads one page of unfinished workflows after `after` (null: from the first) and sets each going. */
  sweep(after: string | null): Promise<WorkflowSweep>;
}

/** What a still log needs, read from its last event. */
type Need = { kind: 'finished' } | { kind: 'signal' } | { kind: 'timeLimit'; step: string; timeoutAt: number } | { kind: 'run' };

/**
 * Only the runner appends a terminal event or SIGNAL_AWAITED, and after SIGNAL_AWAITED only a
 * signal, a time-out or a cancel can follow (each appended after it, at the next sequence): so a
 * log that ends with SIGNAL_AWAITED is exactly one that waits (what replay calls WAITING), and any
 * other unended log has a next event for the runner to decide.
 */
function needOf(last: StoredWorkflowEvent): Need {
  if (isTerminalEvent(last.eventType)) return { kind: 'finished' };
  if (last.eventType !== E.SIGNAL_AWAITED) return { kind: 'run' };
  // A wait whose time limit cannot be read is left to its signal.
  const awaited = readWorkflowEvent(last);
  if (awaited?.eventType !== E.SIGNAL_AWAITED || awaited.payload.timeoutAt === null) return { kind: 'signal' };
  const at = Date.parse(awaited.payload.timeoutAt);
  return Number.isFinite(at) ? { kind: 'timeLimit', step: awaited.payload.step, timeoutAt: at } : { kind: 'signal' };
}

/**
 * Finds workflows that nothing drives any more and sets them going again. What drives a workflow
 * lives in Redis (its `workflow-run` job, the delayed job of a time limit); the log lives in the
 * store. When Redis loses its data, or a job was given up, the log is all that is left: a sweep
 * reads unfinished workflows a page at a time and, for each whose log has been still for the grace
 * period, queues a run, schedules its time limit again, or marks it finished when its log ended
 * (the runner's mark is a separate write that a dead process may have missed). Running a workflow
 * twice is safe (replay and unique sequences), so the sweep errs on the side of a spare job.
 */
export function createWorkflowResumer(deps: WorkflowResumerDeps): WorkflowResumer {
  const now = deps.now ?? (() => new Date());
  const pageSize = deps.pageSize ?? 500;

  return {
    async sweep(after) {
      const page = await deps.workflows.listUnfinished(after, pageSize);
      const sweep: WorkflowSweep = { next: page.length < pageSize ? null : page.at(-1)!.workflowId, read: page.length, resumed: 0, timeLimits: 0, finished: 0 };
      for (const { tenantId, workflowId, summarySeq } of page) {
        const last = await deps.workflows.lastEvent(tenantId, workflowId);
        if (last === null) {
          // Its start request failed before WORKFLOW_STARTED was stored (the client got an error, not
          // its id): nothing will ever happen to it, so once its grace period is over it is marked
          // finished and sweeps stop reading it. The start's own append cannot land that late: store
          // operations time out long before.
          const record = await deps.workflows.get(tenantId, workflowId);
          if (record !== null && now().getTime() - Date.parse(record.startedAt) >= deps.graceMs) {
            await deps.workflows.markFinished(tenantId, workflowId, now().toISOString());
            sweep.finished += 1;
          }
          continue;
        }
        const need = needOf(last);
        if (need.kind === 'finished') {
          const record = deps.announceEnd === undefined ? null : await deps.workflows.get(tenantId, workflowId);
          if (record !== null) await deps.announceEnd?.(tenantId, record, last);
          // The ended log's summary with the mark: it also repairs a summary a lost write left behind.
          await storeSummary(deps.workflows, tenantId, workflowId, endedSummary(last));
          sweep.finished += 1;
          continue;
        }
        const at = now().getTime();
        if (at - Date.parse(last.occurredAt) < deps.graceMs) continue;
        // A writer that stopped after its append, or a summary write FerretDB lost to a concurrent
        // one: the summary is behind the still log. Deriving it needs the definition, so a run does it.
        const summaryBehind = summarySeq < last.sequence;
        if (need.kind === 'run') {
          await deps.resume(tenantId, workflowId);
          sweep.resumed += 1;
        } else if (need.kind === 'timeLimit' && at - need.timeoutAt < deps.graceMs) {
          await deps.scheduleTimeout(tenantId, workflowId, need.step, Math.max(0, need.timeoutAt - at));
          sweep.timeLimits += 1;
          if (summaryBehind) {
            await deps.resume(tenantId, workflowId);
            sweep.resumed += 1;
          }
        } else if (need.kind === 'timeLimit') {
          // Still waiting a grace period after its limit: the timer's job is lost, or was given up
          // after its retries (then its id is kept, and scheduling it again would do nothing).
          await deps.resume(tenantId, workflowId, need.step);
          sweep.resumed += 1;
        } else if (summaryBehind) {
          // A wait without a time limit needs nothing else: the signal request queues the run.
          await deps.resume(tenantId, workflowId);
          sweep.resumed += 1;
        }
      }
      return sweep;
    },
  };
}
