import type { ServiceMetrics } from '../../metrics/index.js';
import type { AppContext } from '../app-types.js';
import type { CompletedRequestObserver } from './request-context.js';

/**
 * Times every request by method, route template and status. The template (`/api/v1/policies/:id`),
 * not the path, keeps the label values bounded; a request no route took is `unmatched`. Told by
 * requestContext when a request is done, with the time it took: one clock and one frame for both.
 */
export function httpMetrics(metrics: ServiceMetrics): CompletedRequestObserver {
  const { httpDuration } = metrics;
  return (ctx: AppContext, seconds: number) => {
    const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    httpDuration.observe({ method: ctx.method, route: typeof route === 'string' ? route : 'unmatched', status: String(ctx.status) }, seconds);
  };
}
