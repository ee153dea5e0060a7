import type { Authentication } from '../route-declaration.js';

const DEPENDENCY_DOWN =
  'Redis or the store does not answer: the rate limit, a signature\'s nonce or the data cannot be read (ERR_SERVICE_UNAVAILABLE; Retry-After says when to retry)';

/** What every route of an authentication kind can answer, whatever it does. */
export const AUTHENTICATION_ERRORS: Readonly<Record<Authentication, Partial<Record<400 | 401 | 403 | 413 | 429 | 503, string>>>> = {
  none: {},
  bearer: {
    400: 'X-Tenant-ID missing or ill-formed (ERR_TENANT_HEADER_*)',
    401: 'no valid bearer token (ERR_AUTH_TOKEN_MISSING, ERR_AUTH_TOKEN_INVALID, ERR_AUTH_TOKEN_EXPIRED)',
    403: 'the token belongs to another tenant or lacks the role (ERR_AUTH_TENANT_MISMATCH, ERR_AUTH_ROLE_INSUFFICIENT)',
    429: 'the tenant\'s rate limit is spent (ERR_RATE_LIMIT_EXCEEDED; Retry-After says when to retry)',
    503: DEPENDENCY_DOWN,
  },
  'signed-or-bearer': {
    400: 'X-Tenant-Id missing or ill-formed, or the body is compressed',
    401: 'a bearer token was sent and is not valid',
    403: 'signature missing or invalid, timestamp stale, nonce reused, or role insufficient (ERR_AUTH_*)',
    413: 'body larger than the limit (ERR_REQUEST_BODY_TOO_LARGE)',
    429: 'the tenant\'s rate limit is spent (ERR_RATE_LIMIT_EXCEEDED; Retry-After says when to retry)',
    503: DEPENDENCY_DOWN,
  },
  signed: {
    400: 'X-Tenant-Id missing or ill-formed',
    403: 'signature missing or invalid, timestamp stale, nonce reused, or role insufficient (ERR_AUTH_*)',
    413: 'body larger than the limit',
    429: 'the tenant\'s rate limit is spent',
    503: DEPENDENCY_DOWN,
  },
};
