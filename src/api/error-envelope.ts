/** The body of every error response (interface spec, Errors), plus a stable `code`. */
export interface ErrorEnvelope {
  result: null;
  error: string;
  /** 0 for errors detected before any policy execution. */
  executionTimeMs: number;
  code: string;
}

export function errorEnvelope(code: string, message: string, executionTimeMs = 0): ErrorEnvelope {
  return { result: null, error: message, executionTimeMs, code };
}
