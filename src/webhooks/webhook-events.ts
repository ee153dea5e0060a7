import { ANOMALY_DETECTED, ANOMALY_STATUS_CHANGED } from '../anomalies/index.js';
import type { AuditRecord } from '../audit/index.js';
import { POLICY_DEPLOYED, POLICY_ROLLED_BACK, POLICY_ROLLOUT_ABORTED, POLICY_ROLLOUT_PROMOTED, POLICY_ROLLOUT_STARTED } from '../policies/index.js';
import { WorkflowEventType, type StoredWorkflowEvent, type WorkflowRecord } from '../workflows/index.js';

/** Events recorded in a tenant's audit chain that subscriptions may take: the follower reads them from there. */
export const CHAIN_EVENT_TYPES = [
  ANOMALY_DETECTED,
  ANOMALY_STATUS_CHANGED,
  POLICY_DEPLOYED,
  POLICY_ROLLED_BACK,
  POLICY_ROLLOUT_STARTED,
  POLICY_ROLLOUT_PROMOTED,
  POLICY_ROLLOUT_ABORTED,
] as const;

/** A workflow's ends, announced by the workflow runner (or by the resume sweep, for an end it finds unannounced). */
export const WORKFLOW_END_EVENT_TYPES = [WorkflowEventType.COMPLETED, WorkflowEventType.FAILED, WorkflowEventType.CANCELLED] as const;

/** Every event a subscription may name. */
export const WEBHOOK_EVENT_TYPES = [...CHAIN_EVENT_TYPES, ...WORKFLOW_END_EVENT_TYPES] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A delivery's body: `data` holds the few fields of the anomaly, workflow or policy the event is about. */
export interface WebhookEvent {
  /** The same for every delivery of the event, whoever found it and however often. */
  id: string;
  type: WebhookEventType;
  occurredAt: string;
  data: Record<string, unknown>;
}

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/** The named members of `payload` that it has: a record's payload lent to a body, nothing else of it. */
function pick(payload: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (payload[name] !== undefined) out[name] = payload[name];
  return out;
}

/** What a chain record's payload lends its event, by type: small fields, never metrics or contexts. */
const CHAIN_DATA: Readonly<Record<(typeof CHAIN_EVENT_TYPES)[number], readonly string[]>> = {
  [ANOMALY_DETECTED]: ['anomalyId', 'type', 'versionId', 'occurrence', 'severity', 'summary'],
  [ANOMALY_STATUS_CHANGED]: ['anomalyId', 'type', 'versionId', 'from', 'to', 'note'],
  [POLICY_DEPLOYED]: ['policyModule', 'version', 'versionId', 'sourceHash', 'locale', 'activated', 'previousVersion'],
  [POLICY_ROLLED_BACK]: ['policyModule', 'version', 'versionId', 'previousVersion', 'previousVersionId'],
  [POLICY_ROLLOUT_STARTED]: ['policyModule', 'rollout', 'version', 'versionId', 'stableVersion', 'stableVersionId', 'mode', 'percent', 'reason', 'anomalyId'],
  [POLICY_ROLLOUT_PROMOTED]: ['policyModule', 'rollout', 'version', 'versionId', 'stableVersion', 'stableVersionId', 'mode', 'percent', 'reason', 'anomalyId'],
  [POLICY_ROLLOUT_ABORTED]: ['policyModule', 'rollout', 'version', 'versionId', 'stableVersion', 'stableVersionId', 'mode', 'percent', 'reason', 'anomalyId'],
};

/** The event of an audit record, or null for a type no subscription takes. Its id is the record's. */
export function chainEventOf(record: AuditRecord): WebhookEvent | null {
  if (!(CHAIN_EVENT_TYPES as readonly string[]).includes(record.eventType)) return null;
  const type = record.eventType as (typeof CHAIN_EVENT_TYPES)[number];
  const data = pick(record.payload, CHAIN_DATA[type]);
  if (record.policyModule !== null) data.policyModule = record.policyModule;
  if (record.policyFunction !== null) data.policyFunction = record.policyFunction;
  return { id: `audit-${record.id}`, type, occurredAt: record.occurredAt, data: { ...data, actorId: record.actorId } };
}

const WORKFLOW_STATUS: Readonly<Record<(typeof WORKFLOW_END_EVENT_TYPES)[number], string>> = {
  [WorkflowEventType.COMPLETED]: 'COMPLETED',
  [WorkflowEventType.FAILED]: 'FAILED',
  [WorkflowEventType.CANCELLED]: 'CANCELLED',
};

/** The event of a workflow's terminal log entry, or null for any other entry. Its id names the workflow and the entry. */
export function workflowEndEventOf(record: WorkflowRecord, ended: StoredWorkflowEvent): WebhookEvent | null {
  if (!(WORKFLOW_END_EVENT_TYPES as readonly string[]).includes(ended.eventType)) return null;
  const type = ended.eventType as (typeof WORKFLOW_END_EVENT_TYPES)[number];
  return {
    id: `workflow-${record.workflowId}-${ended.sequence}`,
    type,
    occurredAt: ended.occurredAt,
    data: {
      workflowId: record.workflowId,
      workflow: record.workflow,
      policyModule: record.policyModule,
      version: record.version,
      status: WORKFLOW_STATUS[type],
      startedAt: record.startedAt,
      finishedAt: ended.occurredAt,
      ...pick(ended.payload, ['finalResult', 'failedStep', 'error']),
    },
  };
}
