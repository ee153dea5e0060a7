/**
 * A backing service (Redis, the store) did not answer: 503 with Retry-After, so clients back off
 * and retry instead of treating it as the request's fault (500) or hammering a service that is down.
 */
export class DependencyUnavailableError extends Error {
  override readonly name = 'DependencyUnavailableError';
  readonly status = 503;
  readonly code = 'ERR_SERVICE_UNAVAILABLE';
  readonly expose = true;
  readonly headers: Readonly<Record<string, string>>;
  constructor(dependency: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    const retryAfter = options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
    super(`${dependency} is not answering; retry in ${retryAfter} s`, options.cause === undefined ? undefined : { cause: options.cause });
    this.headers = { 'Retry-After': String(retryAfter) };
  }
}

/** Long enough for a restarting Redis to come back, short enough not to idle a healthy client. */
export const DEFAULT_RETRY_AFTER_SECONDS = 2;
