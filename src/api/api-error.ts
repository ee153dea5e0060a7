/**
 * An error whose message a client may see, with the HTTP status and a stable code
 * (`ERR_<AREA>_<WHAT>`). Anything else that reaches the error envelope becomes a 500.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly expose = true;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** The shape the envelope trusts: ApiError, and the errors of auth/ and tenants/, which match it. */
export interface ExposedError {
  status: number;
  code: string;
  message: string;
  expose: true;
  headers?: Readonly<Record<string, string>>;
}

export function isExposedError(error: unknown): error is ExposedError {
  if (!(error instanceof Error)) return false;
  const candidate = error as Error & Partial<ExposedError>;
  return (
    candidate.expose === true &&
    typeof candidate.status === 'number' &&
    candidate.status >= 400 &&
    candidate.status < 600 &&
    typeof candidate.code === 'string'
  );
}
