import { serviceVersion } from '../../config/index.js';
import type { AppRouter } from '../app-types.js';

/** What is running: open to anyone who can reach the service, like the health checks. */
export function versionRoutes(router: AppRouter): void {
  router.get('/version', (ctx) => {
    ctx.body = serviceVersion();
  });
}
