import type { AppRouter } from '../app-types.js';
import { serviceVersion } from '../service-version.js';

/** What is running: open to anyone who can reach the service, like the health checks. */
export function versionRoutes(router: AppRouter): void {
  router.get('/version', (ctx) => {
    ctx.body = serviceVersion();
  });
}
