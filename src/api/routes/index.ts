import type { RouteModule } from '../app-types.js';
import { auditRoutes } from './audit.js';
import { healthRoutes } from './health.js';

/** Every route module of the service, registered in this order on one router. */
export const ROUTE_MODULES: readonly RouteModule[] = [healthRoutes, auditRoutes];

export { auditRoutes, healthRoutes };
