import type { RouteModule } from '../app-types.js';
import { auditRoutes } from './audit.js';
import { consoleRoutes } from './console.js';
import { healthRoutes } from './health.js';
import { metricsRoutes } from './metrics.js';
import { openapiRoutes } from './openapi.js';
import { rollupRoutes } from './rollups.js';
import { versionRoutes } from './version.js';

/** Every route module of the service, registered in this order on one router. */
export const ROUTE_MODULES: readonly RouteModule[] = [healthRoutes, versionRoutes, metricsRoutes, openapiRoutes, consoleRoutes, auditRoutes, rollupRoutes];

export { auditRoutes, consoleRoutes, healthRoutes, metricsRoutes, openapiRoutes, rollupRoutes, versionRoutes };
