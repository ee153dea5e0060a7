import {
  batchEvaluationBodySchema,
  parseBatchEvaluationBody,
  parseSourceEvaluationBody,
  sourceEvaluationBodySchema,
  toResponseItem,
  type EvaluationService,
  type RequestLimits,
} from '../../evaluation/index.js';
import { receiptFields, RECEIPT_HEADERS, setReceiptHeaders } from '../audit-receipt.js';
import * as answers from '../openapi/response-schemas.js';
import { bindRoutes, declareRoutes, type RouteGroup, type SignedRequestOptions } from '../route-declaration.js';
import { callerOf, EVALUATION_UNAVAILABLE, requesterGone, traceParam, traceQuery, unlessUnavailable } from './evaluation-route-kit.js';

export const EVALUATE_SOURCE_ROUTE = '/api/v1/policies/evaluate-source';
export const EVALUATE_SOURCE_BATCH_ROUTE = '/api/v1/policies/evaluate-source/batch';

export interface EvaluationRouteOptions extends SignedRequestOptions {
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
export const EVALUATION_ROUTES = declareRoutes<EvaluationRouteOptions>([
  {
    method: 'post',
    path: EVALUATE_SOURCE_ROUTE,
    auth: 'signed-or-bearer',
    role: 'MEMBER',
    query: traceQuery,
    body: sourceEvaluationBodySchema,
    doc: {
      tag: 'evaluation',
      summary: 'Evaluate one rule of a source sent in the request',
      success: {
        status: 200,
        schema: answers.evaluationAnswer,
        description: 'the result, or the evaluation\'s error (still 200); the receipt of its audit record in the headers',
        headers: RECEIPT_HEADERS,
      },
      errors: { 400: 'bad body (ERR_EVALUATION_REQUEST_INVALID) or query', 503: EVALUATION_UNAVAILABLE },
    },
    handle: async (ctx, options) => {
      const trace = traceParam(ctx);
      const request = parseSourceEvaluationBody(ctx.request.body, options.limits);
      const gone = requesterGone(ctx);
      const [answer] = await unlessUnavailable(() => options.service.evaluate(callerOf(ctx), [{ kind: 'source', request }], { trace, gone }));
      setReceiptHeaders(ctx, answer!.receipt);
      ctx.body = toResponseItem(answer!.result, trace);
    },
  },
  {
    method: 'post',
    path: EVALUATE_SOURCE_BATCH_ROUTE,
    auth: 'signed-or-bearer',
    role: 'MEMBER',
    // A batch spends one point per item, so a batch buys no more evaluations than single requests.
    cost: { points: (ctx, options) => batchCost(ctx.request.body, options.maxBatchItems) },
    query: traceQuery,
    body: batchEvaluationBodySchema,
    doc: {
      tag: 'evaluation',
      summary: 'Evaluate many items at once',
      description:
        'Items are source items (as evaluate-source) or references to deployed policies (as /api/v1/policies/evaluate); each fails on its own. The rate limit spends one point per item. Each answer carries `auditRecordId` and `auditContentHash`, the receipt of its audit record, stored before the answer; both are null for an item refused before it was evaluated (nothing was recorded for it).',
      success: { status: 200, schema: answers.batchAnswer, description: 'one answer per item, each with the receipt of its audit record' },
      errors: { 400: 'bad envelope or too many items', 503: EVALUATION_UNAVAILABLE },
    },
    handle: async (ctx, options) => {
      const trace = traceParam(ctx);
      const entries = parseBatchEvaluationBody(ctx.request.body, options.maxBatchItems, options.limits);
      const gone = requesterGone(ctx);
      const evaluated = await unlessUnavailable(() => options.service.evaluate(callerOf(ctx), entries, { trace, gone }));
      ctx.body = { results: evaluated.map((answer) => ({ ...toResponseItem(answer.result, trace), ...receiptFields(answer.receipt) })) };
    },
  },
]);

export function createEvaluationRoutes(options: EvaluationRouteOptions): RouteGroup {
  return bindRoutes(EVALUATION_ROUTES, options, options);
}
