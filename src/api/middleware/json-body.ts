import { parse as parseJsonText } from '@hapi/bourne';
import getRawBody from 'raw-body';
import { keepRawBody } from '../../auth/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext, AppMiddleware } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { jsonShapeExcess } from './json-shape.js';

export interface JsonBodyOptions {
  limitBytes: number;
  /** Deepest nesting of arrays and objects accepted; default MAX_JSON_NESTING. */
  maxNesting?: number;
  /** Most members of one object accepted; default MAX_JSON_OBJECT_MEMBERS. */
  maxObjectMembers?: number;
}

/**
 * JSON.parse takes any nesting, but JSON.stringify, structured clone and every recursive walk
 * overflow the stack a few thousand levels down: a body nested deeper than this is refused before
 * anything else sees it. It sits above CONTEXT_MAX_DEPTH (64) plus a batch's envelope, so a context
 * that is merely too deep fails as that batch item alone, with its own code.
 */
export const MAX_JSON_NESTING = 128;

/**
 * Most members one JSON object of a body may have. Each member of a wide object costs every reader
 * after the parser (schemas, problem lists, canonical JSON for an Idempotency-Key) on the event loop
 * that answers every tenant: a 1 MiB body of 100,000 keys held it 80–230 ms where the same bytes as
 * one string took a few. No body of this service needs more; a context's record has a few dozen.
 */
export const MAX_JSON_OBJECT_MEMBERS = 10_000;

const JSON_TYPE = 'application/json';

/** Bodies of other methods are left unread (a signed GET's body is still hashed as received). */
const PARSED_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A body must be an object or an array: its text opens one after any JSON whitespace (RFC 8259). */
const OPENS_OBJECT_OR_ARRAY = /^[\x20\x09\x0a\x0d]*[[{]/;

/** UTF-8 as received: a byte order mark is dropped, bytes that are no UTF-8 read as U+FFFD. */
const UTF8 = new TextDecoder('utf-8');

/**
 * The body's value: `{}` for an empty body, else JSON that is an object or an array, without a
 * `__proto__` member (bourne refuses one: it would set a prototype once copied). A SyntaxError
 * otherwise.
 */
function parseBody(text: string): unknown {
  if (text === '') return {};
  if (!OPENS_OBJECT_OR_ARRAY.test(text)) throw new SyntaxError('invalid JSON, only supports object and array');
  return parseJsonText(text, { protoAction: 'error' });
}

/**
 * Request bodies are accepted as sent, never decompressed: request signatures cover the bytes on
 * the wire, and a body that must be inflated before it can be checked is a decompression bomb
 * waiting for a bigger one. Any Content-Encoding other than `identity` (in any case, as every
 * content coding) is refused before a byte of the body is read, on every route (`undefined` when
 * the request may go on).
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
 * under the limit; the parsed value lands in `ctx.request.body`, and the bytes received are kept
 * for request signatures (`keepRawBody`), which cover exactly them. The body is read once.
 */
export function jsonBody(options: JsonBodyOptions): AppMiddleware {
  const maxNesting = options.maxNesting ?? MAX_JSON_NESTING;
  const maxMembers = options.maxObjectMembers ?? MAX_JSON_OBJECT_MEMBERS;
  /** Reads the body once, as bytes (request signatures cover exactly the bytes received: keepRawBody), and parses it. */
  async function readJson(ctx: AppContext, next: () => Promise<unknown>): Promise<void> {
    let bytes: Buffer;
    try {
      bytes = await getRawBody(ctx.req, { limit: options.limitBytes, ...(ctx.request.length === undefined ? {} : { length: ctx.request.length }) });
    } catch (error) {
      // The reader stopped at the error: discard the rest of the body, so the connection can carry another request.
      ctx.req.resume();
      throw readError(error, options.limitBytes);
    }
    keepRawBody(ctx.req, bytes);
    const text = UTF8.decode(bytes);
    try {
      ctx.request.body = parseBody(text);
    } catch (error) {
      throw error instanceof SyntaxError ? malformedJson(error) : error;
    }
    const excess = jsonShapeExcess(text, maxNesting, maxMembers);
    if (excess === 'nesting') {
      throw new ApiError(
        400,
        ApiErrorCode.REQUEST_JSON_TOO_DEEP,
        `request body nests arrays and objects more than ${maxNesting} levels deep; the limit is ${maxNesting}`,
      );
    }
    if (excess === 'members') {
      throw new ApiError(
        400,
        ApiErrorCode.REQUEST_JSON_TOO_WIDE,
        `request body has an object of more than ${maxMembers.toLocaleString('en-US')} members; the limit is ${maxMembers.toLocaleString('en-US')}`,
      );
    }
    await next();
  }

  // Not async: a request without a body to parse goes on with the next middleware's promise.
  return (ctx, next) => {
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
    return type !== null && PARSED_METHODS.has(ctx.method) ? readJson(ctx, next) : next();
  };
}

/** raw-body reports problems as http-errors with a `type`. */
function readError(error: unknown, limitBytes: number): unknown {
  const { status, type } = error as { status?: number; type?: string };
  if (status === 413 || type === 'entity.too.large') {
    return new ApiError(413, ApiErrorCode.REQUEST_BODY_TOO_LARGE, `request body exceeds the limit of ${limitBytes} bytes`);
  }
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    return new ApiError(400, ApiErrorCode.REQUEST_BODY_INCOMPLETE, 'request body ended before its declared length');
  }
  return error;
}

function malformedJson(error: SyntaxError): ApiError {
  return new ApiError(400, ApiErrorCode.REQUEST_JSON_MALFORMED, `request body is not valid JSON (an object or an array): ${error.message}`);
}
