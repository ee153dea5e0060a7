import type { ServiceMetrics } from '../../metrics/index.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';

/**
 * Prometheus metrics of this process, in the text exposition format. Open like the health checks:
 * it reveals volumes and error codes, no tenant data; keep it on the operators' network.
 */
export const METRICS_ROUTES = declareRoutes<ServiceMetrics>([
  {
    method: 'get',
    path: '/metrics',
    auth: 'none',
    doc: {
      tag: 'operations',
      summary: 'Prometheus metrics of this process',
      success: { status: 200, description: 'text exposition format', contentType: 'text/plain' },
      errors: {},
    },
    handle: async (ctx, metrics) => {
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    },
  },
]);

export function createMetricsRoutes(metrics: ServiceMetrics): RouteGroup {
  return bindRoutes(METRICS_ROUTES, metrics);
}
