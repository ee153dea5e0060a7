import { Readable } from 'node:stream';
import type { AppMiddleware } from '../app-types.js';
import { jsonAnswer } from '../json-answer.js';

/** A body Koa would serialise as JSON: an object that is no buffer, stream, blob or fetch Response. */
function isJsonBody(body: unknown): body is object {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Buffer.isBuffer(body) &&
    !(body instanceof Readable) &&
    typeof (body as { pipe?: unknown }).pipe !== 'function' &&
    !(body instanceof ReadableStream) &&
    !(body instanceof Blob) &&
    !(body instanceof Response)
  );
}

/**
 * Inside the error handler: serialises JSON answers here, within `maxBytes`, so an answer larger
 * than its bound (or than the longest string the runtime can make) becomes the error envelope (500
 * ERR_RESPONSE_TOO_LARGE) rather than a failed write or Koa's plain-text 500. The error code of a
 * refusal stays readable for the request log.
 */
export function jsonResponse(maxBytes: number): AppMiddleware {
  return async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (!isJsonBody(body)) return;
    const code = (body as { code?: unknown }).code;
    if (ctx.status >= 400 && typeof code === 'string') ctx.state.errorCode = code;
    const text = jsonAnswer(body, maxBytes);
    // A JSON media type the route chose stays; a string body alone would be sent as text.
    if (!/\bjson\b/i.test(ctx.type)) ctx.type = 'application/json';
    ctx.body = text;
  };
}
