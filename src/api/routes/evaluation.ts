import { createSignedRequestAuth, type NonceGuard } from '../../auth/index.js';
import {
  EvaluationErrorCode,
  parseBatchEvaluationBody,
  parseSourceEvaluationBody,
  type EvaluationCaller,
  type EvaluationService,
} from '../../evaluation/index.js';
import { EvaluationUnavailableError } from '../../jobs/index.js';
import type { TenantRepository } from '../../store/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext, AppMiddleware, RouteModule } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { queryValue } from '../query-params.js';
import { createEvaluationBearerCheck } from './evaluation-bearer.js';

export const EVALUATE_SOURCE_ROUTE = '/api/v1/policies/evaluate-source';
export const EVALUATE_SOURCE_BATCH_ROUTE = '/api/v1/policies/evaluate-source/batch';

export interface EvaluationRouteOptions {
  service: EvaluationService;
  /** Where the signed-request check finds each tenant's signing secrets. */
  tenants: Pick<TenantRepository, 'activeSecrets'>;
  nonceGuard: NonceGuard;
  /** ± seconds a signed request's timestamp may differ from server time; default 300. */
  signatureWindowSeconds?: number;
  /** Most items in one batch request (EVALUATE_BATCH_MAX_ITEMS). */
  maxBatchItems: number;
}

/** `?trace=true` asks for the decision trace; `false` or no parameter, none. */
function traceParam(ctx: AppContext): boolean {
  const value = queryValue(ctx, 'trace');
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new ApiError(400, ApiErrorCode.REQUEST_QUERY_INVALID, `query parameter \`trace\` must be \`true\` or \`false\` (got \`${value}\`)`);
}

function callerOf(ctx: AppContext): EvaluationCaller {
  const principal = ctx.state.principal;
  if (!principal) throw new Error('evaluation route reached without a principal');
  return { tenantId: principal.tenantId, actorId: principal.subject };
}

/** The request was valid but nothing could evaluate it in time: 503, never a hang. */
async function unlessUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EvaluationUnavailableError) {
      throw new ApiError(503, EvaluationErrorCode.UNAVAILABLE, `policy evaluation is unavailable: ${error.message}`);
    }
    throw error;
  }
}

/**
 * Evaluation of policy source sent in the request, one at a time or in batches. Guards, in order:
 * tenant header (400), signature or bearer token with role MEMBER (403/401), the tenant's rate
 * limit (429); then the query and body (400).
 */
export function createEvaluationRoutes(options: EvaluationRouteOptions): RouteModule {
  return (router, deps, kit) => {
    const authenticate = createSignedRequestAuth({
      tenants: options.tenants,
      nonceGuard: options.nonceGuard,
      minRole: 'MEMBER',
      allowBearer: createEvaluationBearerCheck(deps.tokenVerifier),
      bodyLimitBytes: deps.bodyLimitBytes,
      ...(options.signatureWindowSeconds !== undefined ? { windowSeconds: options.signatureWindowSeconds } : {}),
    }) as unknown as AppMiddleware;

    router.post(EVALUATE_SOURCE_ROUTE, authenticate, kit.rateLimit, async (ctx) => {
      const trace = traceParam(ctx);
      const request = parseSourceEvaluationBody(ctx.request.body);
      ctx.body = await unlessUnavailable(() => options.service.evaluateSource(callerOf(ctx), request, { trace }));
    });

    router.post(EVALUATE_SOURCE_BATCH_ROUTE, authenticate, kit.rateLimit, async (ctx) => {
      const trace = traceParam(ctx);
      const entries = parseBatchEvaluationBody(ctx.request.body, options.maxBatchItems);
      const results = await unlessUnavailable(() => options.service.evaluateBatch(callerOf(ctx), entries, { trace }));
      ctx.body = { results };
    });
  };
}
