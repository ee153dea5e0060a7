import type { AppDeps, AppRouter } from '../app-types.js';

/**
 * Prometheus metrics of this process, in the text exposition format. Open like the health checks:
 * it reveals volumes and error codes, no tenant data; keep it on the operators' network.
 */
export function metricsRoutes(router: AppRouter, deps: AppDeps): void {
  const { metrics } = deps;
  if (metrics === undefined) return;
  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
}
