import type { WorkflowService } from '../../workflows/index.js';
import type { AppContext, RouteModule } from '../app-types.js';
import { integerParam } from '../query-params.js';
import { callerOf, unlessUnavailable } from './evaluation-route-kit.js';
import { createSignedOrBearerGuard, type SignedOrBearerOptions } from './signed-or-bearer-guard.js';

export const WORKFLOWS_ROUTE = '/api/v1/workflows';

export interface WorkflowRouteOptions extends SignedOrBearerOptions {
  service: WorkflowService;
}

function workflowIdOf(ctx: AppContext): string {
  return (ctx as AppContext & { params: Record<string, string> }).params.workflowId ?? '';
}

/**
 * Workflows: start, state, signals and cancel take a signature or a bearer token (MEMBER), like the
 * evaluation endpoints; the event history is a REST read with a bearer token (MEMBER), as the
 * interface has it.
 */
export function createWorkflowRoutes(options: WorkflowRouteOptions): RouteModule {
  const { service } = options;
  return (router, deps, kit) => {
    const guard = createSignedOrBearerGuard(options, deps, kit);

    router.post(WORKFLOWS_ROUTE, ...guard('MEMBER'), async (ctx) => {
      // Starting compiles the module's workflows in the engine: without a worker that is a 503.
      ctx.body = await unlessUnavailable(() => service.start(callerOf(ctx), (ctx.request as { body?: unknown }).body));
      ctx.status = 201;
    });

    router.get(`${WORKFLOWS_ROUTE}/:workflowId/events`, kit.restGuard('MEMBER'), async (ctx) => {
      const fromSeq = integerParam(ctx, 'fromSeq', { min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 });
      ctx.body = await service.events(callerOf(ctx), workflowIdOf(ctx), fromSeq);
    });

    router.get(`${WORKFLOWS_ROUTE}/:workflowId`, ...guard('MEMBER'), async (ctx) => {
      ctx.body = await unlessUnavailable(() => service.get(callerOf(ctx), workflowIdOf(ctx)));
    });

    router.post(`${WORKFLOWS_ROUTE}/:workflowId/signals`, ...guard('MEMBER'), async (ctx) => {
      ctx.body = await unlessUnavailable(() => service.signal(callerOf(ctx), workflowIdOf(ctx), (ctx.request as { body?: unknown }).body));
    });

    router.post(`${WORKFLOWS_ROUTE}/:workflowId/cancel`, ...guard('MEMBER'), async (ctx) => {
      ctx.body = await unlessUnavailable(() => service.cancel(callerOf(ctx), workflowIdOf(ctx)));
    });
  };
}
