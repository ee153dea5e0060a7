import { z } from 'zod';
import { isName, MAX_NAME_LENGTH } from '../../kernel/index.js';
import {
  WORKFLOW_PAGE_DEFAULT_SIZE,
  WORKFLOW_PAGE_MAX_PAGE,
  WORKFLOW_PAGE_MAX_SIZE,
  WORKFLOW_STATUSES,
  workflowSignalBodySchema,
  workflowStartBodySchema,
  type WorkflowListRequest,
  type WorkflowService,
  type WorkflowStatus,
} from '../../workflows/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { parseIsoTimestamp } from '../iso-timestamp.js';
import { AUTHENTICATION_ERRORS } from '../openapi/authentication-errors.js';
import * as answers from '../openapi/response-schemas.js';
import { integerParam, queryValue } from '../query-params.js';
import { pathValue } from '../route-context.js';
import { bindRoutes, declareRoutes, type Authentication, type RouteGroup, type SignedRequestOptions } from '../route-declaration.js';
import { callerOf, unlessUnavailable } from './evaluation-route-kit.js';

export const WORKFLOWS_ROUTE = '/api/v1/workflows';

export interface WorkflowRouteOptions extends SignedRequestOptions {
  service: WorkflowService;
}

function workflowIdOf(ctx: AppContext): string {
  return pathValue(ctx, 'workflowId');
}

function invalidQuery(message: string): ApiError {
  return new ApiError(400, ApiErrorCode.REQUEST_QUERY_INVALID, message);
}

function statusParam(ctx: AppContext): WorkflowStatus | undefined {
  const status = queryValue(ctx, 'status');
  if (status === undefined) return undefined;
  if (!(WORKFLOW_STATUSES as readonly string[]).includes(status)) {
    throw invalidQuery(`query parameter \`status\` must be one of ${WORKFLOW_STATUSES.join(', ')} (got \`${status.slice(0, 64)}\`)`);
  }
  return status as WorkflowStatus;
}

function nameParam(ctx: AppContext, name: 'policyModule' | 'workflow'): string | undefined {
  const value = queryValue(ctx, name);
  if (value !== undefined && !isName(value)) throw invalidQuery(`query parameter \`${name}\` must be a name of 1 to ${MAX_NAME_LENGTH} characters`);
  return value;
}

/** An instant in the stored form (milliseconds: a finer fraction rounds up, as both bounds are `≥`/`<` comparisons). */
function instantParam(ctx: AppContext, name: 'startedAfter' | 'startedBefore'): string | undefined {
  const text = queryValue(ctx, name);
  if (text === undefined) return undefined;
  const instant = parseIsoTimestamp(text, 'ceil');
  if (instant === null) {
    throw invalidQuery(`query parameter \`${name}\` must be an ISO 8601 date-time with a time zone such as 2026-01-31T09:00:00Z (got \`${text.slice(0, 64)}\`)`);
  }
  return instant;
}

/** The list's query: a page and the filters, each checked (a 400 naming the first bad one). */
function listRequestOf(ctx: AppContext): WorkflowListRequest {
  const page = integerParam(ctx, 'page', { min: 0, max: WORKFLOW_PAGE_MAX_PAGE, default: 0 });
  const size = integerParam(ctx, 'size', { min: 1, max: WORKFLOW_PAGE_MAX_SIZE, default: WORKFLOW_PAGE_DEFAULT_SIZE });
  const status = statusParam(ctx);
  const policyModule = nameParam(ctx, 'policyModule');
  const workflow = nameParam(ctx, 'workflow');
  const startedFrom = instantParam(ctx, 'startedAfter');
  const startedBefore = instantParam(ctx, 'startedBefore');
  if (startedFrom !== undefined && startedBefore !== undefined && startedFrom > startedBefore) {
    throw invalidQuery('query parameter `startedAfter` must not be after `startedBefore`');
  }
  return {
    page,
    size,
    ...(status === undefined ? {} : { status }),
    ...(policyModule === undefined ? {} : { policyModule }),
    ...(workflow === undefined ? {} : { workflow }),
    ...(startedFrom === undefined ? {} : { startedFrom }),
    ...(startedBefore === undefined ? {} : { startedBefore }),
  };
}

const workflowId = { workflowId: 'workflow id' };
/** A route's own 403 replaces its authentication's in the document, so it repeats that one too. */
const otherTenantsWorkflow = (auth: Authentication) => `${AUTHENTICATION_ERRORS[auth][403]}; or the workflow belongs to another tenant (ERR_WORKFLOW_OTHER_TENANT)`;
const NO_WORKER = 'no worker compiled the module in time; retry later';

/**
 * Workflows: start, state, signals and cancel take a signature or a bearer token (MEMBER), like the
 * evaluation endpoints; the event history is a REST read with a bearer token (MEMBER), as the
 * interface has it, and so is the list of the tenant's workflows.
 */
export const WORKFLOW_ROUTES = declareRoutes<WorkflowService>([
  {
    method: 'post',
    path: WORKFLOWS_ROUTE,
    auth: 'signed-or-bearer',
    role: 'MEMBER',
    body: workflowStartBodySchema,
    doc: {
      tag: 'workflows',
      summary: 'Start a workflow of a deployed module',
      success: { status: 201, schema: answers.workflowStarted, description: 'the new workflow\'s id' },
      errors: {
        400: 'bad body or context (ERR_WORKFLOW_REQUEST_INVALID)',
        404: 'no such module or workflow',
        409: 'a quota of the tenant\'s workflows is reached: unfinished workflows (ERR_WORKFLOW_UNFINISHED_LIMIT) or stored bytes (ERR_WORKFLOW_STORAGE_LIMIT)',
        413: 'body larger than the limit (ERR_REQUEST_BODY_TOO_LARGE), or `context` larger than WORKFLOW_CONTEXT_MAX_BYTES as JSON (ERR_WORKFLOW_CONTEXT_TOO_LARGE)',
        422: 'that module version\'s workflow cannot be compiled',
        503: 'no worker compiled the module in time; retry later (once the start is stored it is answered 201 even if its run cannot be queued: the resume sweep runs it)',
      },
    },
    handle: async (ctx, service) => {
      // Starting compiles the module's workflows in the engine: without a worker that is a 503.
      ctx.body = await unlessUnavailable(() => service.start(callerOf(ctx), (ctx.request as { body?: unknown }).body));
      ctx.status = 201;
    },
  },
  {
    method: 'get',
    path: WORKFLOWS_ROUTE,
    auth: 'bearer',
    role: 'MEMBER',
    query: z.object({
      status: z.enum(WORKFLOW_STATUSES).optional(),
      policyModule: z.string().optional().describe('the module\'s name'),
      workflow: z.string().optional().describe('the workflow\'s declared name'),
      startedAfter: z.string().optional().describe('ISO 8601 with a zone: started at or after it'),
      startedBefore: z.string().optional().describe('ISO 8601 with a zone: started before it'),
      page: z.number().int().min(0).max(WORKFLOW_PAGE_MAX_PAGE).optional().describe('zero-based (default 0)'),
      size: z.number().int().min(1).max(WORKFLOW_PAGE_MAX_SIZE).optional().describe(`default ${WORKFLOW_PAGE_DEFAULT_SIZE}`),
    }),
    doc: {
      tag: 'workflows',
      summary: 'The tenant\'s workflows, newest start first, paged',
      description: 'Each workflow\'s status, current step and final result as stored beside it after each event (no context, no steps: GET one workflow for those).',
      success: { status: 200, schema: answers.workflowPage, description: 'one page' },
      errors: { 400: 'bad query: an unknown status, a malformed date, page or size out of range (ERR_REQUEST_QUERY_INVALID)' },
    },
    handle: async (ctx, service) => {
      ctx.body = await service.list(callerOf(ctx), listRequestOf(ctx));
    },
  },
  {
    method: 'get',
    path: `${WORKFLOWS_ROUTE}/{workflowId}/events`,
    auth: 'bearer',
    role: 'MEMBER',
    pathParams: workflowId,
    query: z.object({ fromSeq: z.number().int().min(0).optional().describe('default 0') }),
    doc: {
      tag: 'workflows',
      summary: 'A workflow\'s events from a sequence on',
      success: {
        status: 200,
        schema: z.array(answers.workflowEvent),
        description: 'events, ascending, at most 1,000 (a shorter page does not mean the end: ask again from the last sequence + 1 until `[]`)',
      },
      errors: { 400: 'bad fromSeq', 403: otherTenantsWorkflow('bearer'), 404: 'no such workflow' },
    },
    handle: async (ctx, service) => {
      const fromSeq = integerParam(ctx, 'fromSeq', { min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 });
      ctx.body = await service.events(callerOf(ctx), workflowIdOf(ctx), fromSeq);
    },
  },
  {
    method: 'get',
    path: `${WORKFLOWS_ROUTE}/{workflowId}`,
    auth: 'signed-or-bearer',
    role: 'MEMBER',
    pathParams: workflowId,
    doc: {
      tag: 'workflows',
      summary: 'A workflow\'s state, replayed from its events',
      success: { status: 200, schema: answers.workflow, description: 'the state' },
      errors: { 403: otherTenantsWorkflow('signed-or-bearer'), 404: 'no such workflow for the tenant', 503: NO_WORKER },
    },
    handle: async (ctx, service) => {
      ctx.body = await unlessUnavailable(() => service.get(callerOf(ctx), workflowIdOf(ctx)));
    },
  },
  {
    method: 'post',
    path: `${WORKFLOWS_ROUTE}/{workflowId}/signals`,
    auth: 'signed-or-bearer',
    role: 'MEMBER',
    pathParams: workflowId,
    body: workflowSignalBodySchema,
    doc: {
      tag: 'workflows',
      summary: 'Send the signal an Await step waits for',
      success: { status: 200, schema: answers.workflow, description: 'the state after the signal' },
      errors: { 400: 'bad body', 403: otherTenantsWorkflow('signed-or-bearer'), 404: 'no such workflow', 409: 'the workflow does not wait for that signal', 503: NO_WORKER },
    },
    handle: async (ctx, service) => {
      ctx.body = await unlessUnavailable(() => service.signal(callerOf(ctx), workflowIdOf(ctx), (ctx.request as { body?: unknown }).body));
    },
  },
  {
    method: 'post',
    path: `${WORKFLOWS_ROUTE}/{workflowId}/cancel`,
    auth: 'signed-or-bearer',
    role: 'MEMBER',
    pathParams: workflowId,
    doc: {
      tag: 'workflows',
      summary: 'Cancel (compensating what ran)',
      success: { status: 200, schema: answers.workflow, description: 'the state after the request' },
      errors: { 403: otherTenantsWorkflow('signed-or-bearer'), 404: 'no such workflow', 409: 'the workflow has ended', 503: NO_WORKER },
    },
    handle: async (ctx, service) => {
      ctx.body = await unlessUnavailable(() => service.cancel(callerOf(ctx), workflowIdOf(ctx)));
    },
  },
]);

export function createWorkflowRoutes({ service, ...signing }: WorkflowRouteOptions): RouteGroup {
  return bindRoutes(WORKFLOW_ROUTES, service, signing);
}
