import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../logging/index.js';
import type { AppMiddleware } from '../app-types.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Outermost: gives each request an id (the caller's X-Request-Id when it is sane), a child
 * logger carrying it, and one log line when the response is done.
 */
export function requestContext(logger: Logger): AppMiddleware {
  return async (ctx, next) => {
    const offered = ctx.get(REQUEST_ID_HEADER);
    const requestId = ACCEPTABLE_REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ reqId: requestId });
    ctx.set(REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          // The error envelope's code: what went wrong, without reading the body.
          code: ctx.status >= 400 ? (ctx.state.errorCode ?? (ctx.body as { code?: unknown } | null | undefined)?.code) : undefined,
          tenantId: ctx.state.tenantId,
          ms: Math.round((performance.now() - started) * 100) / 100,
        },
        'request completed',
      );
    }
  };
}
