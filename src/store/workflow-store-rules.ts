import { WORKFLOW_STATUSES } from '../workflows/workflow-replay.js';
import type { WorkflowEvent, WorkflowListQuery, WorkflowRecord, WorkflowSummary } from '../workflows/workflow-store.js';
import { assertCount, assertPolicyName } from './policy-store-rules.js';
import { StoreArgumentError } from './store-argument-error.js';
import { normaliseInstant } from './store-rules.js';

/** Checks shared by both adapters for workflows, so they refuse exactly the same input. */

const WORKFLOW_ID = /^[A-Za-z0-9_-]{1,128}$/;
const EVENT_TYPE = /^[A-Z][A-Z_]{0,63}$/;

/** Ids are opaque: letters, digits, `_`, `-` (UUIDs fit). A lookup by any other string finds nothing. */
export function isWorkflowId(id: unknown): id is string {
  return typeof id === 'string' && WORKFLOW_ID.test(id);
}

function assertObject(value: unknown, field: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new StoreArgumentError(`${field} must be an object`);
}

export function assertWorkflowRecord(record: WorkflowRecord): void {
  if (!isWorkflowId(record.workflowId)) throw new StoreArgumentError('workflowId must be 1 to 128 letters, digits, `_` or `-`');
  assertPolicyName(record.policyModule, 'policyModule');
  assertPolicyName(record.workflow, 'workflow');
  assertCount(record.version, 'version', 0);
  assertObject(record.context, 'context');
  if (typeof record.actorId !== 'string') throw new StoreArgumentError('actorId must be a string');
  normaliseInstant(record.startedAt, 'startedAt');
}

/** Consecutive sequences from at least 1, each event well-formed. */
export function assertWorkflowEvents(events: readonly WorkflowEvent[]): void {
  events.forEach((event, i) => {
    assertCount(event.sequence, 'sequence', 1);
    if (i > 0 && event.sequence !== events[i - 1]!.sequence + 1) throw new StoreArgumentError('event sequences must be consecutive');
    if (typeof event.eventType !== 'string' || !EVENT_TYPE.test(event.eventType)) {
      throw new StoreArgumentError('eventType must be 1 to 64 capital letters or `_`');
    }
    assertObject(event.payload, 'payload');
    normaliseInstant(event.occurredAt, 'occurredAt');
  });
}

/** A page of `listUnfinished`: after a workflow id (or from the first), at least one workflow. */
export function assertUnfinishedPage(afterWorkflowId: string | null, limit: number): void {
  if (afterWorkflowId !== null && !isWorkflowId(afterWorkflowId)) throw new StoreArgumentError('afterWorkflowId must be a workflow id or null');
  assertCount(limit, 'limit', 1);
}

/** A summary as both adapters keep it: a status of the set, the sequence it reflects, its instant normalised. */
export function normaliseSummary(summary: WorkflowSummary): WorkflowSummary {
  if (!(WORKFLOW_STATUSES as readonly string[]).includes(summary.status)) throw new StoreArgumentError(`status must be one of ${WORKFLOW_STATUSES.join(', ')}`);
  if (summary.currentStep !== null && typeof summary.currentStep !== 'string') throw new StoreArgumentError('currentStep must be a string or null');
  if (summary.finalResult !== null && typeof summary.finalResult !== 'boolean') throw new StoreArgumentError('finalResult must be a boolean or null');
  assertCount(summary.seq, 'seq', 0);
  return { ...summary, finishedAt: summary.finishedAt === null ? null : normaliseInstant(summary.finishedAt, 'finishedAt') };
}

/** A list query whose fields were checked, its instants normalised. */
export function normaliseListQuery(query: WorkflowListQuery): WorkflowListQuery {
  if (query.status !== undefined && !(WORKFLOW_STATUSES as readonly string[]).includes(query.status)) {
    throw new StoreArgumentError(`status must be one of ${WORKFLOW_STATUSES.join(', ')}`);
  }
  if (query.policyModule !== undefined) assertPolicyName(query.policyModule, 'policyModule');
  if (query.workflow !== undefined) assertPolicyName(query.workflow, 'workflow');
  assertCount(query.offset, 'offset', 0);
  assertCount(query.limit, 'limit', 1);
  return {
    ...query,
    ...(query.startedFrom === undefined ? {} : { startedFrom: normaliseInstant(query.startedFrom, 'startedFrom') }),
    ...(query.startedBefore === undefined ? {} : { startedBefore: normaliseInstant(query.startedBefore, 'startedBefore') }),
  };
}
