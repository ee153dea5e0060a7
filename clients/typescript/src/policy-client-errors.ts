/** Failures of a request as a whole. A policy that fails to evaluate is a result, not one of these. */

export interface PolicyHttpErrorDetails {
  method: string;
  path: string;
  status: number;
  /** The envelope's stable `code`, when the server sent one. */
  code: string | null;
  /** The parsed response body (the error envelope, GraphQL `errors`, …) or its text when not JSON. */
  body: unknown;
  /** Seconds from Retry-After on a 429 that was not (or no longer) retried. */
  retryAfterSeconds: number | null;
  attempts: number;
}

/** The service answered with a non-2xx status, after any retries the rules allow. */
export class PolicyHttpError extends Error {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly code: string | null;
  readonly body: unknown;
  readonly retryAfterSeconds: number | null;
  readonly attempts: number;

  constructor(serverMessage: string, details: PolicyHttpErrorDetails) {
    super(`${details.method} ${details.path} answered ${details.status}: ${serverMessage}`);
    this.name = 'PolicyHttpError';
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.code = details.code;
    this.body = details.body;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.attempts = details.attempts;
  }
}

/** A 2xx answer whose body is not what the interface promises. */
export class PolicyProtocolError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'PolicyProtocolError';
  }
}

/** No HTTP answer at all (connection refused or reset, timeout). Not retried: the outcome is unknown. */
export class PolicyNetworkError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly path: string,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'PolicyNetworkError';
  }
}
