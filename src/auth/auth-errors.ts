/** 401: the caller could not be identified. `expose` lets the API show the message as is. */
export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
  readonly status = 401;
  readonly expose = true;
  readonly headers: Record<string, string>;
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    // RFC 6750 §3: a 401 names the scheme; invalid_token tells clients to get a new one.
    this.headers = {
      'WWW-Authenticate': code === AuthErrorCode.TOKEN_MISSING ? 'Bearer' : 'Bearer error="invalid_token"',
    };
  }
}

/** 403: the caller is known but may not do this. */
export class AuthorizationError extends Error {
  override readonly name = 'AuthorizationError';
  readonly status = 403;
  readonly expose = true;
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const AuthErrorCode = {
  TOKEN_MISSING: 'ERR_AUTH_TOKEN_MISSING',
  TOKEN_INVALID: 'ERR_AUTH_TOKEN_INVALID',
  TOKEN_EXPIRED: 'ERR_AUTH_TOKEN_EXPIRED',
  TENANT_MISMATCH: 'ERR_AUTH_TENANT_MISMATCH',
  ROLE_INSUFFICIENT: 'ERR_AUTH_ROLE_INSUFFICIENT',
} as const;
