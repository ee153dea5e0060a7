import { ApiError } from '../api-error.js';
import type { AppMiddleware, AppRouter } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';

/**
 * 405 with `Allow` for a path that a route names literally (`/api/v1/policies/evaluate-source`)
 * when the method is not one of its routes', even though a route with a parameter
 * (`GET /api/v1/policies/:id`) would take the request: the literal path is the more specific
 * match, so the client meant it and used the wrong method. Paths that only parameter routes match
 * are left to the router (its own 405 covers a wrong method there).
 */
export function fixedPathMethods(router: AppRouter): AppMiddleware {
  return async (ctx, next) => {
    if (ctx.method === 'OPTIONS') return next();
    const fixed = router.match(ctx.path, ctx.method).path.filter((layer) => layer.paramNames.length === 0 && layer.methods.length > 0);
    if (fixed.length > 0 && !fixed.some((layer) => layer.methods.includes(ctx.method))) {
      const allow = [...new Set(fixed.flatMap((layer) => layer.methods))].join(', ');
      throw new ApiError(405, ApiErrorCode.ROUTE_METHOD_NOT_ALLOWED, `${ctx.method} ${ctx.path} is not allowed; allowed methods: ${allow}`, {
        Allow: allow,
      });
    }
    await next();
  };
}
