import * as answers from '../openapi/response-schemas.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';
import { serviceVersion } from '../service-version.js';

/** What is running: open to anyone who can reach the service, like the health checks. */
export const VERSION_ROUTES = declareRoutes<void>([
  {
    method: 'get',
    path: '/version',
    auth: 'none',
    doc: { tag: 'operations', summary: 'What is running', success: { status: 200, schema: answers.version, description: 'the build' }, errors: {} },
    handle: (ctx) => {
      ctx.body = serviceVersion();
    },
  },
]);

export function createVersionRoutes(): RouteGroup {
  return bindRoutes(VERSION_ROUTES, undefined);
}
