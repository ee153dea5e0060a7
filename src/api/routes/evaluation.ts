import { parseBatchEvaluationBody, parseSourceEvaluationBody, toResponseItem, type EvaluationService, type RequestLimits } from '../../evaluation/index.js';
import type { RouteModule } from '../app-types.js';
import { callerOf, requesterGone, traceParam, unlessUnavailable } from './evaluation-route-kit.js';
import { createSignedOrBearerGuard, type SignedOrBearerOptions } from './signed-or-bearer-guard.js';

export const EVALUATE_SOURCE_ROUTE = '/api/v1/policies/evaluate-source';
export const EVALUATE_SOURCE_BATCH_ROUTE = '/api/v1/policies/evaluate-source/batch';

export interface EvaluationRouteOptions extends SignedOrBearerOptions {
  service: Pick<EvaluationService, 'evaluate'>;
  /** Most items in one batch request (EVALUATE_BATCH_MAX_ITEMS). */
  maxBatchItems: number;
  limits?: RequestLimits;
}

/**
 * Points of a batch request: one per item when `items` is an array of acceptable size; anything
 * else costs 1 and is refused (400) by the body check after the rate limit.
 */
function batchCost(body: unknown, maxItems: number): number {
  const items = typeof body === 'object' && body !== null ? (body as { items?: unknown }).items : undefined;
  return Array.isArray(items) && items.length >= 1 && items.length <= maxItems ? items.length : 1;
}

/**
 * Evaluation of policy source sent in the request, one at a time or in batches (whose items may
 * also name deployed policies). Guards, in order: tenant header (400), signature or bearer token
 * with role MEMBER (403/401), the tenant's rate limit (429); then the query and body (400).
 */
export function createEvaluationRoutes(options: EvaluationRouteOptions): RouteModule {
  return (router, deps, kit) => {
    const guards = createSignedOrBearerGuard(options, deps, kit);
    const guard = guards('MEMBER');
    // A batch spends one point per item, so a batch buys no more evaluations than single requests.
    const batchGuard = guards('MEMBER', (ctx) => batchCost(ctx.request.body, options.maxBatchItems));

    router.post(EVALUATE_SOURCE_ROUTE, ...guard, async (ctx) => {
      const trace = traceParam(ctx);
      const request = parseSourceEvaluationBody(ctx.request.body, options.limits);
      const gone = requesterGone(ctx);
      const [answer] = await unlessUnavailable(() => options.service.evaluate(callerOf(ctx), [{ kind: 'source', request }], { trace, gone }));
      ctx.body = toResponseItem(answer!.result, trace);
    });

    router.post(EVALUATE_SOURCE_BATCH_ROUTE, ...batchGuard, async (ctx) => {
      const trace = traceParam(ctx);
      const entries = parseBatchEvaluationBody(ctx.request.body, options.maxBatchItems, options.limits);
      const gone = requesterGone(ctx);
      const answers = await unlessUnavailable(() => options.service.evaluate(callerOf(ctx), entries, { trace, gone }));
      ctx.body = { results: answers.map((answer) => toResponseItem(answer.result, trace)) };
    });
  };
}
