import { randomUUID } from 'node:crypto';
import { DependencyUnavailableError } from '../../errors/index.js';
import type { Logger } from '../../logging/index.js';
import { isStoreUnreachable } from '../../store/index.js';
import { ApiError, isExposedError } from '../api-error.js';
import type { AppContext, AppMiddleware } from '../app-types.js';
import { clientErrorFields, isClientCaused } from '../client-caused.js';
import { ApiErrorCode } from '../error-codes.js';
import { errorEnvelope } from '../error-envelope.js';

/**
 * Owns error mapping: every failure below it becomes the envelope with the right status.
 * Only errors that declare themselves exposable show their message; a store that did not answer is
 * a 503 with Retry-After (the request may succeed later); a client that hung up, or a library's
 * client error, is a 4xx logged at debug without a stack; anything else is a 500
 * whose reference id is logged with the stack and is the only detail the client gets.
 */
export function errorHandler(fallbackLogger: Logger): AppMiddleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        const unrouted = unroutedError(ctx);
        if (unrouted) respond(ctx, unrouted, fallbackLogger);
      }
    } catch (error) {
      respond(ctx, error, fallbackLogger);
    }
  };
}

/** The router leaves these statuses without a body when nothing answered the request. */
function unroutedError(ctx: AppContext): ApiError | null {
  const where = `${ctx.method} ${ctx.path}`;
  const allow = ctx.response.get('Allow');
  switch (ctx.status) {
    case 404:
      return new ApiError(404, ApiErrorCode.ROUTE_NOT_FOUND, `no route matches ${where}`);
    case 405:
      return new ApiError(405, ApiErrorCode.ROUTE_METHOD_NOT_ALLOWED, `${where} is not allowed; allowed methods: ${allow}`, {
        Allow: String(allow),
      });
    case 501:
      return new ApiError(501, ApiErrorCode.ROUTE_METHOD_NOT_IMPLEMENTED, `method ${ctx.method} is not supported`);
    default:
      return null;
  }
}

function respond(ctx: AppContext, thrown: unknown, fallbackLogger: Logger): void {
  let error = thrown;
  if (!isExposedError(error) && isStoreUnreachable(error)) {
    (ctx.state.log ?? fallbackLogger).warn({ reason: (error as Error).message }, 'the store did not answer');
    error = new DependencyUnavailableError('the store', { cause: error });
  }
  if (isExposedError(error)) {
    ctx.status = error.status;
    if (error.headers) ctx.set({ ...error.headers });
    ctx.body = errorEnvelope(error.code, error.message);
    return;
  }
  const status = (error as { status?: unknown } | null)?.status;
  if ((error as { expose?: unknown } | null)?.expose === true && typeof status === 'number' && status >= 400 && status < 500) {
    // A library's own client error (http-errors style) without a code of ours.
    ctx.status = status;
    ctx.body = errorEnvelope(ApiErrorCode.REQUEST_INVALID, (error as Error).message);
    return;
  }
  if (isClientCaused(error)) {
    // A client that hung up mid-request, or a library's client error whose message is not for clients.
    // Asked first: the request's own logger is made only when something is written.
    if (fallbackLogger.isLevelEnabled('debug')) (ctx.state.log ?? fallbackLogger).debug(clientErrorFields(error), 'request refused: the client caused the error');
    const { statusCode } = error as { statusCode?: unknown };
    ctx.status = [status, statusCode].find((value): value is number => typeof value === 'number' && value >= 400 && value < 500) ?? 400;
    ctx.body = errorEnvelope(ApiErrorCode.REQUEST_INVALID, 'the request could not be read as sent');
    return;
  }
  const reference = randomUUID();
  (ctx.state.log ?? fallbackLogger).error({ err: error, ref: reference }, 'unexpected error');
  ctx.status = 500;
  ctx.body = errorEnvelope(ApiErrorCode.INTERNAL_UNEXPECTED, `internal error; reference ${reference}`);
}
