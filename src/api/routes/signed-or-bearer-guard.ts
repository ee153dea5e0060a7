import { createSignedRequestAuth, type NonceGuard, type Role } from '../../auth/index.js';
import type { TenantRepository } from '../../store/index.js';
import type { AppDeps, AppMiddleware, RouteKit } from '../app-types.js';
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
 * tenant's rate limit (429).
 */
export function createSignedOrBearerGuard(
  options: SignedOrBearerOptions,
  deps: AppDeps,
  kit: RouteKit,
): (minRole: Role) => AppMiddleware[] {
  const allowBearer = createEvaluationBearerCheck(deps.tokenVerifier);
  return (minRole) => [
    createSignedRequestAuth({
      tenants: options.tenants,
      nonceGuard: options.nonceGuard,
      minRole,
      allowBearer,
      bodyLimitBytes: deps.bodyLimitBytes,
      ...(options.signatureWindowSeconds !== undefined ? { windowSeconds: options.signatureWindowSeconds } : {}),
    }) as unknown as AppMiddleware,
    kit.rateLimit,
  ];
}
