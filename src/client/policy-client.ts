import type { AuditReceipt } from '../audit/audit-content-hash.js';
// The signing module is pure (node:crypto only); importing it directly keeps the server-side
// middleware and its dependencies out of the client.
import { signRequest } from '../auth/request-signature.js';
import { receiptFromFields, receiptFromHeaders, receiptsFromExtensions } from './answer-receipts.js';
import type {
  EvaluateBatchOutcome,
  EvaluateSourceInput,
  EvaluateSourceOutcome,
  EvaluationOutcome,
  GraphQLErrorItem,
  GraphQLOutcome,
  PolicyClient,
  PolicyClientOptions,
  PolicyResponse,
  RequestBodyInput,
  RequestOptions,
} from './client-types.js';
import { isRecord } from './json-object.js';
import { PolicyHttpError, PolicyNetworkError, PolicyProtocolError } from './policy-client-errors.js';
import { checkReceipt } from './receipt-check.js';
import { DEFAULT_RETRY_POLICY, decideRetry, parseRetryAfter, type RetryPolicy } from './retry-policy.js';

export const EVALUATE_SOURCE_PATH = '/api/v1/policies/evaluate-source';
export const DEFAULT_BATCH_PATH = '/api/v1/policies/evaluate-source/batch';
export const GRAPHQL_PATH = '/graphql';
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * A client for the service that follows the interface's client rules: every attempt freshly signed,
 * 429 and 5xx retried (Retry-After honoured, otherwise exponential backoff with jitter, bounded),
 * other 4xx never retried, and a 200 carrying `error` reported as a failed evaluation. Evaluation
 * outcomes carry their audit receipts, which `checkReceipt` checks against the stored record.
 */
export function createPolicyClient(options: PolicyClientOptions): PolicyClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  // Fail at construction on an unusable address rather than on the first request.
  new URL(baseUrl);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retryPolicy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    ...options.retryPolicy,
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
  };
  if (!Number.isInteger(retryPolicy.retries) || retryPolicy.retries < 0) {
    throw new RangeError(`retries must be a whole number ≥ 0, got ${retryPolicy.retries}`);
  }

  function headersFor(method: string, pathWithQuery: string, body: Uint8Array | undefined, extra: RequestOptions) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.bearerToken !== undefined) headers.authorization = `Bearer ${options.bearerToken}`;
    if (options.secret !== undefined) {
      Object.assign(
        headers,
        signRequest({
          method,
          pathWithQuery,
          body,
          tenantId: options.tenantId,
          role: options.role,
          secret: options.secret,
          timestamp: Math.floor(now() / 1000),
        }),
      );
    } else {
      headers['X-Tenant-Id'] = options.tenantId;
      headers['X-User-Role'] = options.role;
    }
    return { ...headers, ...extra.headers };
  }

  async function request<T>(
    method: string,
    path: string,
    body?: RequestBodyInput,
    requestOptions: RequestOptions = {},
  ): Promise<PolicyResponse<T>> {
    if (!path.startsWith('/')) throw new TypeError(`path must start with '/', got ${JSON.stringify(path)}`);
    const verb = method.toUpperCase();
    const url = new URL(baseUrl + path);
    // Exactly the request target fetch puts on the wire, so the server hashes what was signed.
    const pathWithQuery = url.pathname + url.search;
    const bytes = encodeBody(body);

    for (let retryIndex = 0; ; retryIndex += 1) {
      const attempts = retryIndex + 1;
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: verb,
          headers: headersFor(verb, pathWithQuery, bytes, requestOptions),
          ...(bytes !== undefined ? { body: bytes } : {}),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new PolicyNetworkError(`${verb} ${path} got no answer: ${(error as Error).message}`, verb, path, {
          cause: error,
        });
      }
      const text = await response.text();
      if (response.ok) {
        return { status: response.status, headers: response.headers, body: parseSuccessBody(text, response.status) as T, attempts };
      }
      const retryAfter = response.headers.get('retry-after');
      const decision = decideRetry(response.status, retryAfter, retryIndex, retryPolicy, random, now());
      if (decision.retry) {
        await sleep(decision.delayMs);
        continue;
      }
      const errorBody = parseErrorBody(text);
      const waitMs = response.status === 429 ? parseRetryAfter(retryAfter, now()) : null;
      throw new PolicyHttpError(serverMessage(errorBody, response.statusText), {
        method: verb,
        path,
        status: response.status,
        code: isRecord(errorBody) && typeof errorBody.code === 'string' ? errorBody.code : null,
        body: errorBody,
        retryAfterSeconds: waitMs === null ? null : Math.ceil(waitMs / 1000),
        attempts,
      });
    }
  }

  return {
    request,

    async evaluateSource<T>(input: EvaluateSourceInput, requestOptions?: RequestOptions): Promise<EvaluateSourceOutcome<T>> {
      const response = await request<unknown>('POST', EVALUATE_SOURCE_PATH, { ...input }, requestOptions);
      const receipt = receiptFromHeaders(response.headers, response.status);
      return { ...toOutcome<T>(response.body, response.status, receipt), status: response.status, attempts: response.attempts };
    },

    async evaluateBatch<T>(items: readonly EvaluateSourceInput[], requestOptions?: RequestOptions): Promise<EvaluateBatchOutcome<T>> {
      const response = await request<unknown>('POST', options.batchPath ?? DEFAULT_BATCH_PATH, { items }, requestOptions);
      const results = isRecord(response.body) ? response.body.results : undefined;
      if (!Array.isArray(results) || results.length !== items.length) {
        throw new PolicyProtocolError(
          `batch response must carry a results array with one item per evaluation (${items.length})`,
          response.status,
          response.body,
        );
      }
      return {
        results: results.map((item) => toOutcome<T>(item, response.status, isRecord(item) ? receiptFromFields(item, response.status) : null)),
        status: response.status,
        attempts: response.attempts,
      };
    },

    async graphql<T>(
      query: string,
      variables?: Record<string, unknown>,
      requestOptions: RequestOptions & { operationName?: string } = {},
    ): Promise<GraphQLOutcome<T>> {
      const { operationName, ...rest } = requestOptions;
      const payload: Record<string, unknown> = { query };
      if (variables !== undefined) payload.variables = variables;
      if (operationName !== undefined) payload.operationName = operationName;
      const response = await request<unknown>('POST', GRAPHQL_PATH, payload, rest);
      const body = response.body;
      if (!isRecord(body)) {
        throw new PolicyProtocolError('GraphQL response is not a JSON object', response.status, body);
      }
      const extensions = isRecord(body.extensions) ? body.extensions : null;
      const meta = { extensions, receipts: receiptsFromExtensions(extensions, response.status), status: response.status, attempts: response.attempts };
      if (Array.isArray(body.errors) && body.errors.length > 0) {
        return { ok: false, data: (body.data ?? null) as T | null, errors: body.errors as GraphQLErrorItem[], ...meta };
      }
      if (!isRecord(body.data)) {
        throw new PolicyProtocolError('GraphQL response has neither data nor errors', response.status, body);
      }
      return { ok: true, data: body.data as T, ...meta };
    },

    checkReceipt(receipt, checkOptions) {
      return checkReceipt({ request, sleep, random }, receipt, checkOptions);
    },
  };
}

function encodeBody(body: RequestBodyInput): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return body;
  // Serialised once: the bytes that are hashed are the bytes that are sent, on every attempt.
  return Buffer.from(JSON.stringify(body), 'utf8');
}

function parseSuccessBody(text: string, status: number): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new PolicyProtocolError(`response ${status} is not JSON: ${text.slice(0, 200)}`, status, text);
  }
}

function parseErrorBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function serverMessage(body: unknown, statusText: string): string {
  if (isRecord(body)) {
    if (typeof body.error === 'string') return body.error;
    const first: unknown = Array.isArray(body.errors) ? body.errors[0] : undefined;
    if (isRecord(first) && typeof first.message === 'string') return first.message;
  }
  if (typeof body === 'string' && body !== '') return body.slice(0, 200);
  return statusText || 'no error message';
}

/** Reads one `{result, error, executionTimeMs}` envelope: non-null `error` means the evaluation failed. */
function toOutcome<T>(item: unknown, status: number, receipt: AuditReceipt | null): EvaluationOutcome<T> {
  if (!isRecord(item)) throw new PolicyProtocolError('evaluation result is not a JSON object', status, item);
  const { error, executionTimeMs } = item;
  if (typeof executionTimeMs !== 'number' || !Number.isFinite(executionTimeMs)) {
    throw new PolicyProtocolError('evaluation result lacks a numeric executionTimeMs', status, item);
  }
  if (error !== null && error !== undefined) {
    return {
      ok: false,
      error: typeof error === 'string' ? error : JSON.stringify(error),
      code: typeof item.code === 'string' ? item.code : null,
      executionTimeMs,
      receipt,
      raw: item,
    };
  }
  if (!('result' in item)) throw new PolicyProtocolError('evaluation result has neither result nor error', status, item);
  return { ok: true, result: item.result as T, executionTimeMs, receipt, raw: item };
}
