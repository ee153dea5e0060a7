import { ApiError } from '../api-error.js';
import type { AppMiddleware, AppRouter } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';

/**
 * A path as the router compares it to a route's: letters in any case, trailing slashes optional.
 * Two paths the router could match to one route have the same key.
 */
function pathKey(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end -= 1;
  return path.slice(0, end).toLowerCase();
}

/** The methods of the routes named literally (no parameter), by the key of their path. */
function literalRouteMethods(router: AppRouter): Map<string, ReadonlySet<string>> {
  const byKey = new Map<string, Set<string>>();
  for (const layer of router.stack) {
    if (layer.paramNames.length > 0 || layer.methods.length === 0 || typeof layer.path !== 'string') continue;
    const key = pathKey(layer.path);
    const methods = byKey.get(key) ?? new Set<string>();
    for (const method of layer.methods) methods.add(method);
    byKey.set(key, methods);
  }
  return byKey;
}

/**
 * 405 with `Allow` for a path that a route names literally (`/api/v1/policies/evaluate-source`)
 * when the method is not one of its routes', even though a route with a parameter
 * (`GET /api/v1/policies/:id`) would take the request: the literal path is the more specific
 * match, so the client meant it and used the wrong method. Paths that only parameter routes match
 * are left to the router (its own 405 covers a wrong method there). A request whose path no
 * literal route has, or whose method one of them takes (nearly every request), goes on after one
 * lookup: matching it against every route cost more than the rest of routing.
 */
export function fixedPathMethods(router: AppRouter): AppMiddleware {
  // Read at the first request: the routes are all registered by then.
  let literalMethods: Map<string, ReadonlySet<string>> | undefined;
  // Not async: a request that goes on gets the next middleware's promise, without a frame of its own.
  return (ctx, next) => {
    if (ctx.method === 'OPTIONS') return next();
    literalMethods ??= literalRouteMethods(router);
    const methods = literalMethods.get(pathKey(ctx.path));
    if (methods === undefined || methods.has(ctx.method)) return next();
    const fixed = router.match(ctx.path, ctx.method).path.filter((layer) => layer.paramNames.length === 0 && layer.methods.length > 0);
    if (fixed.length > 0 && !fixed.some((layer) => layer.methods.includes(ctx.method))) {
      const allow = [...new Set(fixed.flatMap((layer) => layer.methods))].join(', ');
      throw new ApiError(405, ApiErrorCode.ROUTE_METHOD_NOT_ALLOWED, `${ctx.method} ${ctx.path} is not allowed; allowed methods: ${allow}`, {
        Allow: allow,
      });
    }
    return next();
  };
}
