import type { AuditReceipt } from '../audit/audit-content-hash.js';
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
  /** The evaluation's audit record, stored before the answer left; null when nothing was recorded. */
  receipt: AuditReceipt | null;
  /** The whole item as received, for fields beyond the envelope. */
  raw: Record<string, unknown>;
}

/** HTTP 200 whose `error` is non-null: the request was fine, the evaluation failed. */
export interface EvaluationFailure {
  ok: false;
  error: string;
  code: string | null;
  executionTimeMs: number;
  /** A failed evaluation is recorded too; null for an item refused before it was evaluated. */
  receipt: AuditReceipt | null;
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

/** What every GraphQL answer may carry besides `data` and `errors`. */
export interface GraphQLAnswerExtras {
  /** The answer's `extensions` as received; null when it had none. */
  extensions: Record<string, unknown> | null;
  /** Each evaluated decision's receipt (`extensions.auditReceipts`) under its response key, failed decisions included. */
  receipts: Record<string, AuditReceipt>;
}

/** A 200 carrying `errors` is a failure; its `data` may still hold the parts that did resolve. */
export type GraphQLOutcome<T = Record<string, unknown>> =
  | ({ ok: true; data: T } & GraphQLAnswerExtras & ResponseMeta)
  | ({ ok: false; data: T | null; errors: GraphQLErrorItem[] } & GraphQLAnswerExtras & ResponseMeta);

/** A record as `GET /api/v1/audit/records/{id}` answers it; `seq`, `hash` and `previousHash` are null until it is linked. */
export interface AuditRecordView {
  id: string;
  seq: number | null;
  eventType: string;
  policyModule: string | null;
  policyFunction: string | null;
  actorId: string;
  occurredAt: string;
  payload: Record<string, unknown>;
  hash: string | null;
  previousHash: string | null;
  linked: boolean;
  /** The service's hash of the content as read; the client recomputes it rather than trusting it. */
  contentHash: string;
}

/** How to wait for a record's link: at most `reads` reads, `delayMs` doubling between them up to `maxDelayMs` (jittered). */
export interface LinkPolling {
  reads: number;
  delayMs: number;
  maxDelayMs: number;
}

export interface CheckReceiptOptions extends RequestOptions {
  /** Read the record again while it is stored but not yet linked; `true` uses DEFAULT_LINK_POLLING. Default: one read. */
  untilLinked?: boolean | Partial<LinkPolling>;
  /** Once linked, also ask `GET /api/v1/audit/verify` (`full: true` walks the chain from seq 1) whether a valid chain covers the record. */
  verifyChain?: boolean | { full?: boolean };
}

/**
 * Why a receipt is refuted:
 * - `missing`: the tenant has no record with the receipt's id;
 * - `content`: the record's content (id included) does not hash to the receipt's content hash;
 * - `content-hash`: the content matches, but the service reports another content hash for it;
 * - `chain-hash`: the record's `hash` is not the hash of its fields with `seq` and `previousHash`;
 * - `chain-invalid`: the tenant's chain does not verify;
 * - `not-covered`: the verified chain ends before the record, or holds another record at its seq.
 */
export type ReceiptProblem = 'missing' | 'content' | 'content-hash' | 'chain-hash' | 'chain-invalid' | 'not-covered';

interface ReceiptCheckBase {
  receipt: AuditReceipt;
  /** How many times the record was read. */
  reads: number;
}

/**
 * What a receipt check found. `linked`: the record is what was answered and holds `seq` in the chain
 * (`verifiedHeadSeq`, when asked, is the head of the valid chain covering it). `unlinked`: what was
 * answered is stored, but was not linked within the reads allowed. `refuted`: see ReceiptProblem.
 */
export type ReceiptCheck =
  | (ReceiptCheckBase & { status: 'linked'; record: AuditRecordView; seq: number; hash: string; previousHash: string; verifiedHeadSeq: number | null })
  | (ReceiptCheckBase & { status: 'unlinked'; record: AuditRecordView })
  | (ReceiptCheckBase & { status: 'refuted'; problem: ReceiptProblem; message: string; record: AuditRecordView | null });

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
  /**
   * Checks a receipt against its stored record (`GET /api/v1/audit/records/{id}`, ADMIN: a bearer
   * token): the content hash and, once linked, the chain hash are recomputed here. A refuted receipt
   * is a result; a failed request throws as `request` does.
   */
  checkReceipt(receipt: AuditReceipt, options?: CheckReceiptOptions): Promise<ReceiptCheck>;
}
