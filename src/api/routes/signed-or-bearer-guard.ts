import { createSignedRequestAuth, type NonceGuard, type Role } from '../../auth/index.js';
import type { TenantRepository } from '../../tenants/index.js';
import type { AppContext, AppDeps, AppMiddleware, RouteKit } from '../app-types.js';
import { createEvaluationBearerCheck } from './evaluation-bearer.js';

export interface SignedOrBearerOptions {
  /** Where the signed-request check finds each tenant's signing secrets. */
  tenants: Pick<TenantRepository, 'activeSecrets'>;
  nonceGuard: NonceGuard;
  /** ± seconds a signed request's timestamp may differ from server time; default 300. */
  signatureWindowSeconds?: number;
}

/**
 * The guard of the evaluation and registry endpoints, per minimum role: tenant header (400), an
 * HMAC signature or instead a bearer token holding at least that role (403/401), then the
 * tenant's rate limit (429): one point per request, or `cost(ctx)` points when given (the body is
 * parsed by then, so a batch can charge one point per item).
 */
export function createSignedOrBearerGuard(
  options: SignedOrBearerOptions,
  deps: AppDeps,
  kit: RouteKit,
): (minRole: Role, cost?: (ctx: AppContext) => number) => AppMiddleware[] {
  const allowBearer = createEvaluationBearerCheck(deps.tokenVerifier);
  return (minRole, cost) => [
    createSignedRequestAuth({
      tenants: options.tenants,
      nonceGuard: options.nonceGuard,
      minRole,
      allowBearer,
      bodyLimitBytes: deps.bodyLimitBytes,
      ...(options.signatureWindowSeconds !== undefined ? { windowSeconds: options.signatureWindowSeconds } : {}),
    }) as unknown as AppMiddleware,
    cost ? kit.rateLimitBy(cost) : kit.rateLimit,
  ];
}
