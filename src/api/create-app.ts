import Router from '@koa/router';
import Koa from 'koa';
import type { AppDeps } from './app-deps.js';
import type { AppState } from './app-types.js';
import { clientErrorFields, isClientCaused } from './client-caused.js';
import { errorHandler } from './middleware/error-handler.js';
import { fixedPathMethods } from './middleware/fixed-path-methods.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { DEFAULT_RESPONSE_MAX_BYTES } from './json-answer.js';
import { jsonBody } from './middleware/json-body.js';
import { jsonResponse } from './middleware/json-response.js';
import { requestContext } from './middleware/request-context.js';
import { createRouteGuards } from './route-guards.js';

/** `/api/v1/policies/{id}` as the router writes it: `/api/v1/policies/:id`. */
function routerPath(path: string): string {
  return path.replace(/\{([A-Za-z]+)\}/g, ':$1');
}

/** The HTTP application, not listening: the API part (src/service/) serves `app.callback()`, tests do the same. */
export function createApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: deps.trustProxy ?? false });
  // Errors are answered and logged by errorHandler; anything Koa still sees is a write failure,
  // nearly always a client that hung up or sent what the HTTP parser refused.
  app.on('error', (error: unknown, ctx?: { state?: Partial<AppState> }) => {
    const log = ctx?.state?.log ?? deps.logger;
    if (isClientCaused(error)) log.debug(clientErrorFields(error), 'response not delivered: the client ended the request');
    else log.warn({ err: error }, 'response failed');
  });

  const router = new Router<AppState>();
  const guardsOf = createRouteGuards(deps);
  for (const group of deps.routes) {
    for (const route of group.routes) {
      router[route.method](routerPath(route.path), ...guardsOf(route), (ctx) => route.handle(ctx));
    }
  }

  app.use(requestContext(deps.logger, deps.metrics ? [httpMetrics(deps.metrics)] : []));
  app.use(errorHandler(deps.logger));
  app.use(jsonResponse(deps.responseMaxBytes ?? DEFAULT_RESPONSE_MAX_BYTES));
  if (deps.queueBoard) app.use(deps.queueBoard);
  app.use(fixedPathMethods(router));
  app.use(jsonBody({ limitBytes: deps.bodyLimitBytes }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
