import { HttpMethodEnum, koaBody } from 'koa-body';
import { ApiError } from '../api-error.js';
import type { AppMiddleware } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';

export interface JsonBodyOptions {
  limitBytes: number;
}

const JSON_TYPE = 'application/json';

/**
 * Request bodies are accepted as sent, never decompressed: request signatures cover the bytes on
 * the wire, and a body that must be inflated before it can be checked is a decompression bomb
 * waiting for a bigger one. Any Content-Encoding other than `identity` is refused before a byte of
 * the body is read, on every route (`undefined` when the request may go on).
 */
export function contentEncodingRefusal(ctx: { get(field: string): string }): ApiError | undefined {
  const encoding = ctx.get('Content-Encoding').trim();
  if (encoding === '' || encoding.toLowerCase() === 'identity') return undefined;
  return new ApiError(
    400,
    ApiErrorCode.REQUEST_ENCODING_UNSUPPORTED,
    `Content-Encoding \`${encoding.slice(0, 64)}\` is not supported: send the request body uncompressed (Content-Encoding: identity or none)`,
  );
}

/**
 * Every request body in this service is JSON. A request that carries a body must say so and stay
 * under the limit; the parsed value lands in `ctx.request.body` and the exact text in
 * `ctx.request.rawBody` (what request signatures are computed over).
 */
export function jsonBody(options: JsonBodyOptions): AppMiddleware {
  const parse = koaBody({
    json: true,
    jsonStrict: true,
    jsonTypes: [JSON_TYPE],
    jsonLimit: options.limitBytes,
    urlencoded: false,
    text: false,
    multipart: false,
    includeUnparsed: true,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  });
  const parseOnly = async (): Promise<void> => {};
  return async (ctx, next) => {
    const encodingRefusal = contentEncodingRefusal(ctx);
    if (encodingRefusal) throw encodingRefusal;
    // ctx.is() answers null without a body; `Content-Length: 0` (what clients send for a bare POST) is none either.
    const type = ctx.request.length === 0 ? null : ctx.is(JSON_TYPE);
    if (type === false) {
      const sent = ctx.get('Content-Type');
      throw new ApiError(
        400,
        ApiErrorCode.REQUEST_CONTENT_TYPE_UNSUPPORTED,
        `request bodies must be sent as Content-Type: ${JSON_TYPE}${sent === '' ? ' (no Content-Type was sent)' : ` (got \`${sent}\`)`}`,
      );
    }
    if (type !== null) {
      try {
        await parse(ctx, parseOnly);
      } catch (error) {
        throw bodyError(error, options.limitBytes);
      }
    }
    await next();
  };
}

/** co-body / raw-body report problems as http-errors with a status and a `type`. */
function bodyError(error: unknown, limitBytes: number): unknown {
  const { status, type } = error as { status?: number; type?: string };
  if (status === 413 || type === 'entity.too.large') {
    return new ApiError(413, ApiErrorCode.REQUEST_BODY_TOO_LARGE, `request body exceeds the limit of ${limitBytes} bytes`);
  }
  if (status === 415 || type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ApiError(400, ApiErrorCode.REQUEST_ENCODING_UNSUPPORTED, 'request body encoding is not supported: send UTF-8 JSON');
  }
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    return new ApiError(400, ApiErrorCode.REQUEST_BODY_INCOMPLETE, 'request body ended before its declared length');
  }
  if (status === 400 || error instanceof SyntaxError) {
    const reason = error instanceof Error ? error.message : 'unparsable';
    return new ApiError(400, ApiErrorCode.REQUEST_JSON_MALFORMED, `request body is not valid JSON (an object or an array): ${reason}`);
  }
  return error;
}
