import { z } from 'zod';
import { AUDIT_LIST_SLICE, type AuditChainRepository, type AuditRecord } from '../../audit/index.js';
import { AUDIT_CHAIN_LOG, workflowLog, type AppendListeners } from '../../jobs/index.js';
import { isTerminalEvent, WORKFLOW_EVENTS_PAGE, type WorkflowService } from '../../workflows/index.js';
import type { AppContext } from '../app-types.js';
import { auditRecordView } from '../audit-record-view.js';
import { AUTHENTICATION_ERRORS } from '../openapi/authentication-errors.js';
import { integerParam } from '../query-params.js';
import { pathValue, tenantOf } from '../route-context.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';
import type { LogPage } from '../streams/log-stream.js';
import type { OpenStreams } from '../streams/open-streams.js';
import { LAST_EVENT_ID_HEADER, lastEventId } from '../streams/resume-point.js';
import { callerOf } from './evaluation-route-kit.js';
import { WORKFLOWS_ROUTE } from './workflows.js';

export interface StreamRouteDeps {
  workflows: Pick<WorkflowService, 'events'>;
  audit: Pick<AuditChainRepository, 'head' | 'scan'>;
  /** The append notices this process hears, by tenant and log. */
  notices: Pick<AppendListeners, 'listen'>;
  streams: OpenStreams;
}

const STREAMED = 'text/event-stream';
const RESUMED = `A reconnecting client sends \`${LAST_EVENT_ID_HEADER}\` (the \`id\` of the last event it received): it wins over the query parameter, and the stream goes on after it, nothing repeated or skipped. A \`: heartbeat\` comment comes every 15 s. The stream ends when the bearer token expires: reconnect with a new one.`;
const bounded = {
  429: `${AUTHENTICATION_ERRORS.bearer[429]}; or the tenant has STREAM_MAX_PER_TENANT streams open on this server (ERR_STREAM_TENANT_LIMIT; Retry-After says when to retry)`,
  503: `${AUTHENTICATION_ERRORS.bearer[503]}; or this server holds STREAM_MAX_PER_PROCESS streams, or is stopping (ERR_STREAM_CAPACITY_REACHED; Retry-After says when to retry)`,
} as const;
const badLastEventId = `a \`${LAST_EVENT_ID_HEADER}\` that is no whole number (ERR_REQUEST_HEADER_INVALID)`;

/** The page of a workflow's events after `afterSeq`, read from `afterSeq` itself so a client resuming after the final event learns that the log ended. */
async function workflowPage(ctx: AppContext, workflows: StreamRouteDeps['workflows'], workflowId: string, afterSeq: number): Promise<LogPage> {
  const events = await workflows.events(callerOf(ctx), workflowId, Math.max(afterSeq, 0));
  return {
    items: events.filter((event) => event.sequence > afterSeq).map((event) => ({ seq: event.sequence, data: event })),
    full: events.length === WORKFLOW_EVENTS_PAGE,
    ended: events.some((event) => isTerminalEvent(event.eventType)),
  };
}

/** The page of the tenant's chain after `afterSeq`, ascending, as the audit lists show records. */
async function auditPage(audit: StreamRouteDeps['audit'], tenantId: string, afterSeq: number): Promise<LogPage> {
  const records: AuditRecord[] = [];
  // One page of the scan; leaving the loop closes its cursor.
  for await (const record of audit.scan(tenantId, afterSeq + 1, AUDIT_LIST_SLICE)) {
    records.push(record);
    if (records.length === AUDIT_LIST_SLICE) break;
  }
  return { items: records.map((record) => ({ seq: record.seq, data: auditRecordView(record) })), full: records.length === AUDIT_LIST_SLICE, ended: false };
}

/** Push delivery of what the lists answer: a workflow's events and the tenant's audit chain, as Server-Sent Events. */
export const STREAM_ROUTES = declareRoutes<StreamRouteDeps>([
  {
    method: 'get',
    path: `${WORKFLOWS_ROUTE}/{workflowId}/events/stream`,
    auth: 'bearer',
    role: 'MEMBER',
    pathParams: { workflowId: 'workflow id' },
    query: z.object({ fromSeq: z.number().int().min(0).optional().describe('the first sequence to send; default 0') }),
    doc: {
      tag: 'workflows',
      summary: 'A workflow\'s events as they are appended (Server-Sent Events)',
      description: `Each event's \`data\` is one item of GET ${WORKFLOWS_ROUTE}/{workflowId}/events, its \`id\` the event's sequence; the server ends the stream after the workflow's final event (WORKFLOW_COMPLETED, WORKFLOW_FAILED or WORKFLOW_CANCELLED). ${RESUMED} Refusals come as the error envelope before the stream starts.`,
      success: { status: 200, contentType: STREAMED, description: 'the events from fromSeq on, then each as it is appended' },
      errors: {
        400: `bad fromSeq (ERR_REQUEST_QUERY_INVALID), or ${badLastEventId}`,
        403: `${AUTHENTICATION_ERRORS.bearer[403]}; or the workflow belongs to another tenant (ERR_WORKFLOW_OTHER_TENANT)`,
        404: 'no such workflow',
        ...bounded,
      },
    },
    handle: async (ctx, { workflows, notices, streams }) => {
      const fromSeq = integerParam(ctx, 'fromSeq', { min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 });
      const afterSeq = lastEventId(ctx) ?? fromSeq - 1;
      const workflowId = pathValue(ctx, 'workflowId');
      const tenantId = tenantOf(ctx);
      // The first page is read before the stream opens: another tenant's workflow (403) or none (404)
      // is answered as the events list answers it.
      await streams.serve(ctx, tenantId, {
        afterSeq,
        readAfter: (after) => workflowPage(ctx, workflows, workflowId, after),
        listen: (wake) => notices.listen(tenantId, workflowLog(workflowId), wake),
      });
    },
  },
  {
    method: 'get',
    path: '/api/v1/audit/stream',
    auth: 'bearer',
    role: 'ADMIN',
    query: z.object({
      afterSeq: z.number().int().min(0).optional().describe('send the records with a greater seq; default the chain\'s head when the stream opens (records linked from then on), 0 for the whole chain'),
    }),
    doc: {
      tag: 'audit',
      summary: 'The tenant\'s audit records as they are linked into the chain (Server-Sent Events)',
      description: `Each event's \`data\` is a record as GET /api/v1/audit lists it, its \`id\` the record's seq, in ascending seq. ${RESUMED} Refusals come as the error envelope before the stream starts.`,
      success: { status: 200, contentType: STREAMED, description: 'the records after afterSeq, then each as it is linked' },
      errors: { 400: `bad afterSeq (ERR_REQUEST_QUERY_INVALID), or ${badLastEventId}`, ...bounded },
    },
    handle: async (ctx, { audit, notices, streams }) => {
      const tenantId = tenantOf(ctx);
      const given = integerParam(ctx, 'afterSeq', { min: 0, max: Number.MAX_SAFE_INTEGER });
      const afterSeq = lastEventId(ctx) ?? given ?? (await audit.head(tenantId))?.seq ?? 0;
      await streams.serve(ctx, tenantId, {
        afterSeq,
        readAfter: (after) => auditPage(audit, tenantId, after),
        listen: (wake) => notices.listen(tenantId, AUDIT_CHAIN_LOG, wake),
      });
    },
  },
]);

export function createStreamRoutes(deps: StreamRouteDeps): RouteGroup {
  return bindRoutes(STREAM_ROUTES, deps);
}
