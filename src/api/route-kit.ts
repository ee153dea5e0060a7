import { createBearerAuth, requireRole, type Role } from '../auth/index.js';
import type { AppDeps, AppMiddleware, RouteKit } from './app-types.js';
import { idempotent } from './middleware/idempotency.js';
import { rateLimit } from './middleware/rate-limit.js';
import { tenantHeader } from './middleware/tenant-header.js';

/** Runs the middleware in order as one. */
function chain(middleware: readonly AppMiddleware[]): AppMiddleware {
  return (ctx, next) => {
    const run = async (index: number): Promise<void> => {
      const current = middleware[index];
      if (current === undefined) return next();
      await current(ctx, () => run(index + 1));
    };
    return run(0);
  };
}

export function createRouteKit(deps: AppDeps): RouteKit {
  const tenant = tenantHeader();
  const bearer: AppMiddleware = createBearerAuth(deps.tokenVerifier);
  const limit = rateLimit(deps.rateLimiter);
  const guards = new Map<Role, AppMiddleware>();
  return {
    tenant,
    bearer,
    rateLimit: limit,
    rateLimitBy: (cost, unit) => rateLimit(deps.rateLimiter, cost, unit),
    requireRole: (role) => requireRole(role),
    idempotent: idempotent({ repository: deps.store.idempotency, ...(deps.now ? { now: deps.now } : {}) }),
    restGuard(role) {
      let guard = guards.get(role);
      if (!guard) {
        // Quota is spent only by authenticated callers, so nobody can drain another tenant's.
        guard = chain([tenant, bearer, limit, requireRole(role)]);
        guards.set(role, guard);
      }
      return guard;
    },
  };
}
