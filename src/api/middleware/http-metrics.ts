import type { AppMiddleware } from '../app-types.js';
import type { ServiceMetrics } from '../../metrics/index.js';

/**
 * Times every request by method, route template and status. The template (`/api/v1/policies/:id`),
 * not the path, keeps the label values bounded; a request no route took is `unmatched`.
 */
export function httpMetrics(metrics: ServiceMetrics): AppMiddleware {
  return async (ctx, next) => {
    const stop = metrics.httpDuration.startTimer();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      stop({ method: ctx.method, route: typeof route === 'string' ? route : 'unmatched', status: String(ctx.status) });
    }
  };
}
