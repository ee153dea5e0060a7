import { z } from 'zod';
import { workflowSignalBodySchema, workflowStartBodySchema, type WorkflowService } from '../../workflows/index.js';
import type { AppContext } from '../app-types.js';
import { AUTHENTICATION_ERRORS } from '../openapi/authentication-errors.js';
import * as answers from '../openapi/response-schemas.js';
import { integerParam } from '../query-params.js';
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

const workflowId = { workflowId: 'workflow id' };
/** A route's own 403 replaces its authentication's in the document, so it repeats that one too. */
const otherTenantsWorkflow = (auth: Authentication) => `${AUTHENTICATION_ERRORS[auth][403]}; or the workflow belongs to another tenant (ERR_WORKFLOW_OTHER_TENANT)`;
const NO_WORKER = 'no worker compiled the module in time; retry later';

/**
 * Workflows: start, state, signals and cancel take a signature or a bearer token (MEMBER), like the
 * evaluation endpoints; the event history is a REST read with a bearer token (MEMBER), as the
 * interface has it.
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
