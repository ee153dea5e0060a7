import { createBearerAuth, createSignedRequestAuth, requireRole, type Role } from '../auth/index.js';
import type { AppDeps } from './app-deps.js';
import type { AppMiddleware } from './app-types.js';
import { createEvaluationBearerCheck } from './evaluation-bearer.js';
import { idempotent } from './middleware/idempotency.js';
import { rateLimit } from './middleware/rate-limit.js';
import { tenantHeader } from './middleware/tenant-header.js';
import type { BoundRoute, SignedRequestOptions } from './route-declaration.js';

function roleOf(route: BoundRoute): Role {
  if (route.role === undefined) throw new Error(`${route.method.toUpperCase()} ${route.path} authenticates its caller: declare its least role`);
  return route.role;
}

function signingOf(route: BoundRoute): SignedRequestOptions {
  if (route.signing === undefined) throw new Error(`${route.method.toUpperCase()} ${route.path} takes signed requests: bind it with its signing options`);
  return route.signing;
}

/**
 * What runs ahead of a route's handler, from what it declares. `bearer` (REST): tenant header (400),
 * token (401/403), rate limit (429), role (403); quota is spent only by authenticated callers, so
 * nobody can drain another tenant's. `signed-or-bearer` and `signed`: tenant header, signature
 * (or, for the first, a bearer token instead) holding the role (400/401/403), then the rate limit.
 * An idempotent route replays a repeated `Idempotency-Key` after its guard (it needs the tenant).
 */
export function createRouteGuards(deps: AppDeps): (route: BoundRoute) => AppMiddleware[] {
  const tenant = tenantHeader();
  const bearer: AppMiddleware = createBearerAuth(deps.tokenVerifier);
  const allowBearer = createEvaluationBearerCheck(deps.tokenVerifier);
  const onePoint = rateLimit(deps.rateLimiter);
  const replay = idempotent({ repository: deps.idempotency, ...(deps.now ? { now: deps.now } : {}) });

  const signed = (route: BoundRoute, withBearer: boolean): AppMiddleware => {
    const { tenants, nonceGuard, signatureWindowSeconds, nowSeconds } = signingOf(route);
    return createSignedRequestAuth({
      tenants,
      nonceGuard,
      minRole: roleOf(route),
      ...(withBearer ? { allowBearer } : {}),
      gateway: deps.gateway,
      bodyLimitBytes: deps.bodyLimitBytes,
      ...(signatureWindowSeconds !== undefined ? { windowSeconds: signatureWindowSeconds } : {}),
      ...(nowSeconds !== undefined ? { nowSeconds } : {}),
    }) as unknown as AppMiddleware;
  };

  return (route) => {
    const charge = route.cost ? rateLimit(deps.rateLimiter, route.cost.points, route.cost.unit) : onePoint;
    const { read } = route;
    const reading: AppMiddleware[] = read
      ? [
          async (ctx, next) => {
            await read(ctx);
            await next();
          },
        ]
      : [];
    const guard: AppMiddleware[] = [];
    switch (route.auth) {
      case 'none':
        break;
      case 'bearer':
        guard.push(tenant, bearer, ...reading, charge, requireRole(roleOf(route)));
        break;
      case 'signed-or-bearer':
        guard.push(signed(route, true), ...reading, charge);
        break;
      case 'signed':
        guard.push(signed(route, false), ...reading, charge);
        break;
    }
    return [...(route.around ? [route.around] : []), ...guard, ...(route.idempotent ? [replay] : [])];
  };
}
