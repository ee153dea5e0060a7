import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../logging/index.js';
import type { AppContext, AppMiddleware, AppState } from '../app-types.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * `ctx.state.log`, a child logger carrying the request id, made when something first logs: making
 * one for every request cost more than the rest of this middleware, and most requests log nothing
 * but their last line (written here with the id as the child would write it).
 */
function lazyRequestLogger(state: AppState, logger: Logger, requestId: string): void {
  let child: Logger | undefined;
  Object.defineProperty(state, 'log', {
    configurable: true,
    enumerable: true,
    get: () => (child ??= logger.child({ reqId: requestId })),
    set: (value: Logger) => {
      child = value;
    },
  });
}

/** Told of every request when it is done (its status final), with the seconds it took. */
export type CompletedRequestObserver = (ctx: AppContext, seconds: number) => void;

/**
 * Outermost: gives each request an id (the caller's X-Request-Id when it is sane), a child
 * logger carrying it, and when the response is done tells `observers` (the HTTP metrics) how long
 * it took and writes one log line.
 */
export function requestContext(logger: Logger, observers: readonly CompletedRequestObserver[] = []): AppMiddleware {
  return async (ctx, next) => {
    const offered = ctx.get(REQUEST_ID_HEADER);
    const requestId = ACCEPTABLE_REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    lazyRequestLogger(ctx.state, logger, requestId);
    ctx.set(REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = performance.now() - started;
      for (const observe of observers) observe(ctx, ms / 1000);
      if (logger.isLevelEnabled('info')) {
        logger.info(
          {
            reqId: requestId,
            method: ctx.method,
            path: ctx.path,
            status: ctx.status,
            // The error envelope's code: what went wrong, without reading the body.
            code: ctx.status >= 400 ? (ctx.state.errorCode ?? (ctx.body as { code?: unknown } | null | undefined)?.code) : undefined,
            tenantId: ctx.state.tenantId,
            ms: Math.round(ms * 100) / 100,
          },
          'request completed',
        );
      }
    }
  };
}
