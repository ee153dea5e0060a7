/** Codes of the HTTP layer. Other areas keep theirs beside their errors (e.g. auth/auth-errors.ts). */
export const ApiErrorCode = {
  REQUEST_JSON_MALFORMED: 'ERR_REQUEST_JSON_MALFORMED',
  REQUEST_CONTENT_TYPE_UNSUPPORTED: 'ERR_REQUEST_CONTENT_TYPE_UNSUPPORTED',
  REQUEST_ENCODING_UNSUPPORTED: 'ERR_REQUEST_ENCODING_UNSUPPORTED',
  REQUEST_JSON_TOO_DEEP: 'ERR_REQUEST_JSON_TOO_DEEP',
  REQUEST_JSON_TOO_WIDE: 'ERR_REQUEST_JSON_TOO_WIDE',
  REQUEST_BODY_TOO_LARGE: 'ERR_REQUEST_BODY_TOO_LARGE',
  REQUEST_BODY_INCOMPLETE: 'ERR_REQUEST_BODY_INCOMPLETE',
  REQUEST_QUERY_INVALID: 'ERR_REQUEST_QUERY_INVALID',
  REQUEST_PATH_INVALID: 'ERR_REQUEST_PATH_INVALID',
  /** 400: a request header the route reads is malformed (a stream's Last-Event-ID). */
  REQUEST_HEADER_INVALID: 'ERR_REQUEST_HEADER_INVALID',
  /** 400: not HTTP the server can read (a bad request line, a raw non-ASCII byte in the target, …). */
  REQUEST_UNPARSABLE: 'ERR_REQUEST_UNPARSABLE',
  /** 408: the request did not arrive completely within the server's request timeout. */
  REQUEST_TIMEOUT: 'ERR_REQUEST_TIMEOUT',
  /** 431: the request's headers together exceed the server's limit. */
  REQUEST_HEADERS_TOO_LARGE: 'ERR_REQUEST_HEADERS_TOO_LARGE',
  /** A 4xx raised by a library without a code of its own. */
  REQUEST_INVALID: 'ERR_REQUEST_INVALID',
  TENANT_HEADER_MISSING: 'ERR_TENANT_HEADER_MISSING',
  TENANT_HEADER_INVALID: 'ERR_TENANT_HEADER_INVALID',
  ROUTE_NOT_FOUND: 'ERR_ROUTE_NOT_FOUND',
  ROUTE_METHOD_NOT_ALLOWED: 'ERR_ROUTE_METHOD_NOT_ALLOWED',
  ROUTE_METHOD_NOT_IMPLEMENTED: 'ERR_ROUTE_METHOD_NOT_IMPLEMENTED',
  RATE_LIMIT_EXCEEDED: 'ERR_RATE_LIMIT_EXCEEDED',
  /** 429: the tenant has STREAM_MAX_PER_TENANT streams open on this server. */
  STREAM_TENANT_LIMIT: 'ERR_STREAM_TENANT_LIMIT',
  /** 503: this server holds STREAM_MAX_PER_PROCESS streams, or is stopping. */
  STREAM_CAPACITY_REACHED: 'ERR_STREAM_CAPACITY_REACHED',
  IDEMPOTENCY_KEY_INVALID: 'ERR_IDEMPOTENCY_KEY_INVALID',
  /** 422: the key was first used with another request (method, path or body). */
  IDEMPOTENCY_KEY_REUSED: 'ERR_IDEMPOTENCY_KEY_REUSED',
  /** 409: the first request with the key has not finished yet. */
  IDEMPOTENCY_REQUEST_IN_PROGRESS: 'ERR_IDEMPOTENCY_REQUEST_IN_PROGRESS',
  HEALTH_NOT_READY: 'ERR_HEALTH_NOT_READY',
  /** 404: the tenant has no audit record with that id, linked or waiting for its link. */
  AUDIT_RECORD_NOT_FOUND: 'ERR_AUDIT_RECORD_NOT_FOUND',
  /** 500: the answer would be larger than RESPONSE_MAX_BYTES (a bound the service failed to keep). */
  RESPONSE_TOO_LARGE: 'ERR_RESPONSE_TOO_LARGE',
  INTERNAL_UNEXPECTED: 'ERR_INTERNAL_UNEXPECTED',
} as const;

export type ApiErrorCodeValue = (typeof ApiErrorCode)[keyof typeof ApiErrorCode];
