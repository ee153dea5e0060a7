import { receiptFromFields, receiptFromHeaders, receiptsFromExtensions } from './answer-receipts.js';
import type { AuditReceipt } from './audit-hash.js';
import type {
  AnomalyDetail,
  AnomalySettings,
  CreatedWebhookSubscription,
  WebhookDelivery,
  WebhookSubscription,
  AuditListQuery,
  AuditRecord,
  BatchItem,
  DeployedModule,
  PolicyCheck,
  EvaluateBatchOutcome,
  EvaluatedPolicy,
  EvaluateOptions,
  EvaluatePolicyInput,
  EvaluatePolicyOutcome,
  EvaluateSourceInput,
  EvaluateSourceOutcome,
  EvaluationOutcome,
  GraphQLErrorItem,
  GraphQLOutcome,
  IdempotentRequestOptions,
  ModuleVersion,
  ModuleVersionSummary,
  Page,
  Anomaly,
  PolicyClient,
  PolicyClientOptions,
  PolicyDetail,
  PolicyResponse,
  PolicyView,
  RequestBodyInput,
  RequestOptions,
  RolledBack,
  RolloutView,
  RollupSeries,
  VersionSource,
  WorkflowEvent,
  WorkflowSummary,
  WorkflowView,
} from './client-types.js';
import { isRecord } from './json-object.js';
import { PolicyHttpError, PolicyNetworkError, PolicyProtocolError } from './policy-client-errors.js';
import { asRecordView, asVerification, AUDIT_RECORD_PATH, AUDIT_VERIFY_PATH, checkReceipt } from './receipt-check.js';
import { createRequestSigner } from './request-signature.js';
import { DEFAULT_RETRY_POLICY, decideRetry, parseRetryAfter, type RetryPolicy } from './retry-policy.js';

export const EVALUATE_SOURCE_PATH = '/api/v1/policies/evaluate-source';
export const DEFAULT_BATCH_PATH = '/api/v1/policies/evaluate-source/batch';
export const EVALUATE_POLICY_PATH = '/api/v1/policies/evaluate';
export const GRAPHQL_PATH = '/graphql';
export const POLICIES_PATH = '/api/v1/policies';
export const WORKFLOWS_PATH = '/api/v1/workflows';
export const AUDIT_PATH = '/api/v1/audit';
export const ANOMALIES_PATH = '/api/v1/audit/anomalies';
export const ANOMALY_SETTINGS_PATH = '/api/v1/audit/anomaly-settings';
export const ROLLUPS_PATH = '/api/v1/audit/rollups';
export const WEBHOOKS_PATH = '/api/v1/webhooks';
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

  // The key is imported once, at the first signed request; every attempt gets a fresh timestamp and nonce.
  const sign = options.secret !== undefined ? createRequestSigner(options.secret) : undefined;

  async function headersFor(method: string, pathWithQuery: string, body: Uint8Array | undefined, extra: RequestOptions) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.bearerToken !== undefined) headers.authorization = `Bearer ${options.bearerToken}`;
    if (sign !== undefined) {
      Object.assign(
        headers,
        await sign({ method, pathWithQuery, body, tenantId: options.tenantId, role: options.role, timestamp: Math.floor(now() / 1000) }),
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
      const headers = await headersFor(verb, pathWithQuery, bytes, requestOptions);
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: verb,
          headers,
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

  /** The body of a 2xx answer that must be a JSON object (or, with `array`, an array). */
  async function call<T>(method: string, path: string, body?: RequestBodyInput, requestOptions?: RequestOptions, shape: 'object' | 'array' = 'object'): Promise<T> {
    const response = await request<unknown>(method, path, body, requestOptions);
    const fits = shape === 'array' ? Array.isArray(response.body) : isRecord(response.body);
    if (!fits) throw new PolicyProtocolError(`${method} ${path} answered ${response.status} without a JSON ${shape}`, response.status, response.body);
    return response.body as T;
  }

  function withIdempotencyKey(requestOptions: IdempotentRequestOptions = {}): RequestOptions {
    const { idempotencyKey, ...rest } = requestOptions;
    return idempotencyKey === undefined ? rest : { ...rest, headers: { ...rest.headers, 'Idempotency-Key': idempotencyKey } };
  }

  const auditList = (path: string, query: AuditListQuery = {}, requestOptions?: RequestOptions) =>
    call<AuditRecord[]>('GET', withQuery(path, query), undefined, requestOptions, 'array');

  return {
    request,

    async evaluateSource<T>(input: EvaluateSourceInput, requestOptions: EvaluateOptions = {}): Promise<EvaluateSourceOutcome<T>> {
      const { trace, ...rest } = requestOptions;
      const response = await request<unknown>('POST', withQuery(EVALUATE_SOURCE_PATH, { trace }), { ...input }, rest);
      const receipt = receiptFromHeaders(response.headers, response.status);
      return { ...toOutcome<T>(response.body, response.status, receipt), status: response.status, attempts: response.attempts };
    },

    async evaluatePolicy<T>(input: EvaluatePolicyInput, requestOptions: EvaluateOptions = {}): Promise<EvaluatePolicyOutcome<T>> {
      const { trace, ...rest } = requestOptions;
      const { policyModule, policyFunction, context, version } = input;
      const body = { policyModule, policyFunction, ...(version !== undefined ? { version } : {}), context };
      const response = await request<unknown>('POST', withQuery(EVALUATE_POLICY_PATH, { trace }), body, rest);
      const receipt = receiptFromHeaders(response.headers, response.status);
      const outcome = toOutcome<T>(response.body, response.status, receipt);
      return { ...outcome, policy: evaluatedPolicyOf(outcome.raw), status: response.status, attempts: response.attempts };
    },

    async evaluateBatch<T>(items: readonly BatchItem[], requestOptions: EvaluateOptions = {}): Promise<EvaluateBatchOutcome<T>> {
      const { trace, ...rest } = requestOptions;
      const response = await request<unknown>('POST', withQuery(options.batchPath ?? DEFAULT_BATCH_PATH, { trace }), { items }, rest);
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

    deployPolicy: async (input, requestOptions) => call<DeployedModule>('POST', POLICIES_PATH, { ...input }, requestOptions),
    checkPolicy: async (input, requestOptions) => call<PolicyCheck>('POST', `${POLICIES_PATH}/check`, { ...input }, requestOptions),
    listPolicies: async (query = {}, requestOptions) => call<Page<PolicyView>>('GET', withQuery(POLICIES_PATH, query), undefined, requestOptions),
    getPolicy: async (id, requestOptions) => call<PolicyDetail>('GET', `${POLICIES_PATH}/${segment(id)}`, undefined, requestOptions),
    listPolicyVersions: async (policyModule, query = {}, requestOptions) =>
      call<Page<ModuleVersionSummary>>('GET', withQuery(`${POLICIES_PATH}/${segment(policyModule)}/versions`, query), undefined, requestOptions),
    getPolicyVersion: async (policyModule, version, requestOptions) =>
      call<ModuleVersion>('GET', `${POLICIES_PATH}/${segment(policyModule)}/versions/${wholeNumber(version, 'version')}`, undefined, requestOptions),
    getPolicyVersionSource: async (policyModule, version, query = {}, requestOptions) =>
      call<VersionSource>(
        'GET',
        withQuery(`${POLICIES_PATH}/${segment(policyModule)}/versions/${wholeNumber(version, 'version')}/source`, query),
        undefined,
        requestOptions,
      ),
    rollbackPolicy: async (policyModule, version, requestOptions) =>
      call<RolledBack>('POST', `${POLICIES_PATH}/${segment(policyModule)}/rollback`, { version }, requestOptions),
    getRollout: async (policyModule, requestOptions) => call<RolloutView>('GET', `${POLICIES_PATH}/${segment(policyModule)}/rollout`, undefined, requestOptions),
    endRollout: async (policyModule, step, reason, requestOptions) =>
      call<RolloutView>('POST', `${POLICIES_PATH}/${segment(policyModule)}/rollout/${step}`, reason === undefined ? {} : { reason }, requestOptions),

    startWorkflow: async (input, requestOptions) => call<{ workflowId: string }>('POST', WORKFLOWS_PATH, { ...input }, requestOptions),
    listWorkflows: async (query = {}, requestOptions) => call<Page<WorkflowSummary>>('GET', withQuery(WORKFLOWS_PATH, query), undefined, requestOptions),
    getWorkflow: async (workflowId, requestOptions) => call<WorkflowView>('GET', `${WORKFLOWS_PATH}/${segment(workflowId)}`, undefined, requestOptions),
    signalWorkflow: async (workflowId, signal, requestOptions) =>
      call<WorkflowView>('POST', `${WORKFLOWS_PATH}/${segment(workflowId)}/signals`, { signal: signal.signal, approved: signal.approved }, requestOptions),
    cancelWorkflow: async (workflowId, requestOptions) => call<WorkflowView>('POST', `${WORKFLOWS_PATH}/${segment(workflowId)}/cancel`, undefined, requestOptions),
    workflowEvents: async (workflowId, query = {}, requestOptions) =>
      call<WorkflowEvent[]>('GET', withQuery(`${WORKFLOWS_PATH}/${segment(workflowId)}/events`, query), undefined, requestOptions, 'array'),

    listAudit: async (query, requestOptions) => auditList(AUDIT_PATH, query, requestOptions),
    listAuditByType: async (eventType, query, requestOptions) => auditList(`${AUDIT_PATH}/type/${segment(eventType)}`, query, requestOptions),
    listAuditByPolicy: async (policyModule, policyFunction, query, requestOptions) =>
      auditList(`${AUDIT_PATH}/policy/${segment(policyModule)}/${segment(policyFunction)}`, query, requestOptions),
    listAuditRange: async (query, requestOptions) => auditList(`${AUDIT_PATH}/range`, query, requestOptions),
    async verifyAudit(query = {}, requestOptions) {
      const response = await request<unknown>('GET', withQuery(AUDIT_VERIFY_PATH, { full: query.full }), undefined, requestOptions);
      return asVerification(response.body, response.status);
    },
    async getAuditRecord(receiptOrId, requestOptions) {
      const id = typeof receiptOrId === 'string' ? receiptOrId : receiptOrId.id;
      const response = await request<unknown>('GET', `${AUDIT_RECORD_PATH}/${segment(id)}`, undefined, requestOptions);
      return asRecordView(response.body, response.status);
    },
    getRollups: async (query, requestOptions) => call<RollupSeries>('GET', withQuery(ROLLUPS_PATH, query), undefined, requestOptions),

    listAnomalies: async (query = {}, requestOptions) => call<Page<Anomaly>>('GET', withQuery(ANOMALIES_PATH, query), undefined, requestOptions),
    getAnomaly: async (id, requestOptions) => call<AnomalyDetail>('GET', `${ANOMALIES_PATH}/${segment(id)}`, undefined, requestOptions),
    async verifyAnomaly(id, requestOptions) {
      await request<unknown>('POST', `${ANOMALIES_PATH}/${segment(id)}/actions/verify`, undefined, withIdempotencyKey(requestOptions));
    },
    setAnomalyStatus: async (id, change, requestOptions) =>
      call<AnomalyDetail>('PATCH', `${ANOMALIES_PATH}/${segment(id)}/status`, { ...change }, withIdempotencyKey(requestOptions)),
    getAnomalySettings: async (requestOptions) => call<AnomalySettings>('GET', ANOMALY_SETTINGS_PATH, undefined, requestOptions),
    setAnomalySettings: async (overrides, requestOptions) => call<AnomalySettings>('PUT', ANOMALY_SETTINGS_PATH, { ...overrides }, requestOptions),

    createWebhook: async (input, requestOptions) => call<CreatedWebhookSubscription>('POST', WEBHOOKS_PATH, { url: input.url, events: [...input.events] }, requestOptions),
    listWebhooks: async (query = {}, requestOptions) => call<Page<WebhookSubscription>>('GET', withQuery(WEBHOOKS_PATH, query), undefined, requestOptions),
    getWebhook: async (id, requestOptions) => call<WebhookSubscription>('GET', `${WEBHOOKS_PATH}/${segment(id)}`, undefined, requestOptions),
    async deleteWebhook(id, requestOptions) {
      await request<unknown>('DELETE', `${WEBHOOKS_PATH}/${segment(id)}`, undefined, requestOptions);
    },
    listWebhookDeliveries: async (id, query = {}, requestOptions) =>
      call<Page<WebhookDelivery>>('GET', withQuery(`${WEBHOOKS_PATH}/${segment(id)}/deliveries`, query), undefined, requestOptions),
    redeliverWebhook: async (id, deliveryId, requestOptions) =>
      call<WebhookDelivery>('POST', `${WEBHOOKS_PATH}/${segment(id)}/deliveries/${segment(deliveryId)}/redeliver`, undefined, requestOptions),
  };
}

/** One path segment, percent-encoded (a policy id's `@` included); an empty one would name another route. */
function segment(value: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new TypeError(`a path parameter must be a non-empty string, got ${JSON.stringify(value)}`);
  return encodeURIComponent(value);
}

function wholeNumber(value: number, name: string): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${name} must be a whole number ≥ 0, got ${value}`);
  return String(value);
}

/** The path with the parameters that are set (undefined and false-for-`trace` alike are left out), in the order given. */
function withQuery(path: string, params: object): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new TypeError(`query parameter \`${name}\` must be a string, number or boolean`);
    }
    search.append(name, String(value));
  }
  const query = search.toString();
  return query === '' ? path : `${path}?${query}`;
}

/** The version a deployed-policy answer names, when it names one. */
function evaluatedPolicyOf(raw: Record<string, unknown>): EvaluatedPolicy | null {
  const { policyModule, policyFunction, version, versionId } = raw;
  if (typeof policyModule !== 'string' || typeof policyFunction !== 'string' || typeof version !== 'number' || typeof versionId !== 'string') return null;
  return { policyModule, policyFunction, version, versionId };
}

const utf8 = new TextEncoder();

/**
 * The bytes to hash and to send, encoded once: the bytes that are signed are the bytes that are
 * sent, on every attempt. A copy of bytes given, so that they are ArrayBuffer-backed (what fetch's
 * BodyInit and WebCrypto take) and cannot change between attempts.
 */
function encodeBody(body: RequestBodyInput) {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return utf8.encode(body);
  if (body instanceof Uint8Array) return new Uint8Array(body);
  return utf8.encode(JSON.stringify(body));
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
