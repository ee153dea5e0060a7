import type { RetryPolicy } from './retry-policy.js';

export interface PolicyClientOptions {
  /** Service address, e.g. `http://127.0.0.1:8080`; paths are appended to it. */
  baseUrl: string;
  tenantId: string;
  /** Sent as X-User-Role and covered by the signature. */
  role: string;
  /** The tenant's signing secret: every attempt is signed with a fresh timestamp and nonce. */
  secret?: string;
  /** Sent as `Authorization: Bearer …` (REST endpoints, or evaluation without a signature). */
  bearerToken?: string;
  fetch?: typeof globalThis.fetch;
  /** Retries after the first attempt; default 3. */
  retries?: number;
  /** Backoff tuning; `retries` above takes precedence over `retryPolicy.retries`. */
  retryPolicy?: Partial<RetryPolicy>;
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1): the jitter source. */
  random?: () => number;
  /** Milliseconds since the epoch: timestamps and Retry-After dates are read from it. */
  now?: () => number;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  /** Batch evaluation path; default `/api/v1/policies/evaluate-source/batch`. */
  batchPath?: string;
}

/** A body to send: a string or bytes go out as they are, anything else as JSON. */
export type RequestBodyInput = string | Uint8Array | Record<string, unknown> | readonly unknown[] | null | undefined;

export interface RequestOptions {
  headers?: Record<string, string>;
}

export interface PolicyResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON; null for an empty body (202). */
  body: T;
  /** 1 when the first attempt succeeded. */
  attempts: number;
}

export interface EvaluateSourceInput {
  source: string;
  functionName: string;
  /** Object keyed by parameter name, or array in parameter order. */
  context?: Record<string, unknown> | readonly unknown[];
  /** Language tag of the source, e.g. `en` or `de-CH`. */
  locale?: string;
}

export interface EvaluationSuccess<T = unknown> {
  ok: true;
  result: T;
  executionTimeMs: number;
  /** The whole item as received, for fields beyond the envelope. */
  raw: Record<string, unknown>;
}

/** HTTP 200 whose `error` is non-null: the request was fine, the evaluation failed. */
export interface EvaluationFailure {
  ok: false;
  error: string;
  code: string | null;
  executionTimeMs: number;
  raw: Record<string, unknown>;
}

export type EvaluationOutcome<T = unknown> = EvaluationSuccess<T> | EvaluationFailure;

export interface ResponseMeta {
  status: number;
  attempts: number;
}

export type EvaluateSourceOutcome<T = unknown> = EvaluationOutcome<T> & ResponseMeta;

export interface EvaluateBatchOutcome<T = unknown> extends ResponseMeta {
  /** One per input item, in order; each succeeds or fails on its own. */
  results: EvaluationOutcome<T>[];
}

export interface GraphQLErrorItem {
  message: string;
  path?: readonly (string | number)[];
  locations?: readonly { line: number; column: number }[];
  extensions?: Record<string, unknown>;
}

/** A 200 carrying `errors` is a failure; its `data` may still hold the parts that did resolve. */
export type GraphQLOutcome<T = Record<string, unknown>> =
  | ({ ok: true; data: T } & ResponseMeta)
  | ({ ok: false; data: T | null; errors: GraphQLErrorItem[] } & ResponseMeta);

export interface PolicyClient {
  /** Any endpoint; throws PolicyHttpError for a non-2xx answer once retries are spent. */
  request<T = unknown>(method: string, path: string, body?: RequestBodyInput, options?: RequestOptions): Promise<PolicyResponse<T>>;
  /** POST /api/v1/policies/evaluate-source. */
  evaluateSource<T = unknown>(input: EvaluateSourceInput, options?: RequestOptions): Promise<EvaluateSourceOutcome<T>>;
  /** Batch evaluation: one outcome per item, in order. */
  evaluateBatch<T = unknown>(items: readonly EvaluateSourceInput[], options?: RequestOptions): Promise<EvaluateBatchOutcome<T>>;
  /** POST /graphql. */
  graphql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    options?: RequestOptions & { operationName?: string },
  ): Promise<GraphQLOutcome<T>>;
}
