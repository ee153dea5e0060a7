import type { AuditContent, AuditReceipt } from './audit-hash.js';
import type { RetryPolicy } from './retry-policy.js';

export interface PolicyClientOptions {
  /** Service address, e.g. `http://127.0.0.1:8080`; paths are appended to it. */
  baseUrl: string;
  tenantId: string;
  /** Sent as X-User-Role and covered by the signature. */
  role: string;
  /**
   * The tenant's signing secret: every attempt is signed with a fresh timestamp and nonce. Signed
   * requests are taken by evaluation, the registry, GraphQL and workflows (not by the audit and
   * anomaly endpoints, nor the workflow list and a workflow's events, which take a bearer token only).
   */
  secret?: string;
  /** Sent as `Authorization: Bearer …`: every endpoint but GraphQL takes it. With `secret` as well, both are sent. */
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

/** Options of an evaluation request. */
export interface EvaluateOptions extends RequestOptions {
  /** `?trace=true`: each answer carries the decision trace (in `raw.trace`). */
  trace?: boolean;
}

/** Object keyed by parameter name, or array in parameter order. */
export type EvaluationContext = Record<string, unknown> | readonly unknown[];

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
  /** Object keyed by parameter name, or array in parameter order (the service requires it). */
  context?: EvaluationContext;
  /** Language tag of the source, e.g. `en` or `de-CH`; the service's default is `en-US`. */
  locale?: string;
}

/** A deployed (or built-in) policy by name: `POST /api/v1/policies/evaluate`, or a batch item. */
export interface EvaluatePolicyInput {
  policyModule: string;
  /** The rule's name. */
  policyFunction: string;
  context: EvaluationContext;
  /** The module version; the active one when absent (0: the built-in module). */
  version?: number;
}

/** A batch item: source text, or a deployed policy by name. */
export type BatchItem = EvaluateSourceInput | EvaluatePolicyInput;

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

/** The version of a deployed policy that answered. */
export interface EvaluatedPolicy {
  policyModule: string;
  policyFunction: string;
  version: number;
  /** `<module>@<version>`. */
  versionId: string;
}

/** As evaluateSource's, plus the version that answered (null if the answer names none). */
export type EvaluatePolicyOutcome<T = unknown> = EvaluationOutcome<T> & ResponseMeta & { policy: EvaluatedPolicy | null };

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

/** A linked record as the audit lists answer it. */
export interface AuditRecord extends AuditContent {
  id: string;
  seq: number;
  hash: string;
  previousHash: string;
}

/** `limit` (1–1000, default 1000) and `before` (a seq: only older records) of the audit lists. */
export interface AuditListQuery {
  limit?: number;
  before?: number;
}

/** `GET /api/v1/audit/verify`. */
export interface ChainVerification {
  valid: boolean;
  /** Records read and hashed by this verification. */
  checked: number;
  headSeq: number;
  headHash: string | null;
  firstInvalidSeq: number | null;
  reason: string | null;
  /** Records stored but not yet linked into the chain. */
  unlinked: number;
  /** How long the oldest of them has waited; null when there is none. */
  oldestUnlinkedAgeMs: number | null;
}

/** A record as `GET /api/v1/audit/records/{id}` answers it; `seq`, `hash` and `previousHash` are null until it is linked. */
export interface AuditRecordView extends AuditContent {
  id: string;
  seq: number | null;
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

/** The interface's page envelope. */
export interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  /** Zero-based. */
  page: number;
  size: number;
}

export interface PageQuery {
  /** Zero-based; default 0. */
  page?: number;
  /** Default 20, at most 100. */
  size?: number;
}

export type PolicyStatus = 'ACTIVE' | 'SUPERSEDED' | 'RETIRED';

/** One rule of one module version. */
export interface PolicyView {
  /** `<module>.<rule>@<version>`. */
  id: string;
  policyModule: string;
  policyFunction: string;
  version: number;
  versionId: string;
  status: PolicyStatus;
  builtin: boolean;
  locale: string;
  createdAt: string;
  updatedAt: string;
}

/** One policy read by its id: with its version's source. */
export interface PolicyDetail extends PolicyView {
  source: string;
}

export interface PolicyDiagnostic {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  span: { start: number; end: number; line: number; column: number; endLine: number; endColumn: number } | null;
  help?: string;
}

export interface ModuleVersionSummary {
  policyModule: string;
  version: number;
  versionId: string;
  status: PolicyStatus;
  builtin: boolean;
  locale: string;
  sourceHash: string;
  ruleCount: number;
  actorId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface RuleSignature {
  name: string;
  params: { name: string; type: string }[];
  returnType: string;
}

export interface ModuleVersion extends ModuleVersionSummary {
  functions: RuleSignature[];
}

/** What a deploy answers (201). */
export interface DeployedModule extends ModuleVersion {
  policies: PolicyView[];
  warnings: PolicyDiagnostic[];
  /** The rollout the deploy started; null for an active deploy. */
  rollout: (RolloutTerms & { stableVersion: number }) | null;
}

/** How a deploy rolls its version out: `active` (default, ADMIN), `shadow` (MEMBER) or `canary` (ADMIN). */
export type RolloutRequest =
  | { mode: 'active' }
  | { mode: 'shadow'; percent?: number; captureContexts?: boolean }
  | { mode: 'canary'; percent: number; stickyKey?: string };

export interface RolloutTerms {
  mode: 'shadow' | 'canary';
  percent: number;
  stickyKey: string | null;
  captureContexts: boolean;
}

/** One side of a shadow comparison. */
export type ShadowSide = { ok: true; value: unknown } | { ok: false; code: string; error: string };

/** GET /api/v1/policies/{module}/rollout: the module's newest rollout. */
export interface RolloutView extends RolloutTerms {
  policyModule: string;
  rollout: number;
  version: number;
  versionId: string;
  stableVersion: number;
  stableVersionId: string;
  status: 'RUNNING' | 'PROMOTED' | 'ABORTED';
  reason: string | null;
  anomalyId: string | null;
  startedAt: string;
  startedBy: string;
  endedAt: string | null;
  endedBy: string | null;
  shadow: {
    counts: { compared: number; agreed: number; disagreed: number; errors: number; skipped: number };
    disagreements: Array<{ at: string; policyFunction: string; stable: ShadowSide; shadow: ShadowSide; contextHash: string; context?: unknown }>;
  } | null;
  versions: Array<{ version: number; role: 'stable' | 'rollout'; evaluations: number; failures: number; failureRate: number | null; meanTimeMs: number | null }>;
}

export interface DeployPolicyInput {
  source: string;
  /** Default `en-US`. */
  locale?: string;
  /** The content of `<module>.tests.json`: every case must pass before the version is stored (else 422 `ERR_POLICY_TESTS_FAILED`). */
  tests?: ModuleTests;
  /** Roll the version out in the shadow or as a canary instead of making it answer everyone. */
  rollout?: RolloutRequest;
}

export interface CheckPolicyInput {
  source: string;
  /** `en-US`, `de-DE` or `zh-CN`; default: the one the module header names, else `en-US`. */
  locale?: string;
  /** The content of `<module>.tests.json`: each case is run and reported passed or failed. */
  tests?: ModuleTests;
  /** Also print the module in this locale (`formatted`), when it compiles. */
  showIn?: string;
}

/** A place in a checked source: `line` and `column` from 1, as `policy check` prints them; `offset` the UTF-16 index. */
export interface CheckPosition {
  line: number;
  column: number;
  offset: number;
}

/** What `POST /api/v1/policies/check` answers (200 whether or not the source compiled), as `policy check --json` prints it. */
export interface PolicyCheck {
  /** No error diagnostic, and every case passed when tests were given. */
  ok: boolean;
  locale: string;
  /** Null when the module did not compile. */
  module: string | null;
  functions: { name: string; parameters: { name: string; type: string }[]; returns: string }[];
  workflows: { name: string; parameters: { name: string; type: string }[] }[];
  diagnostics: { code: string; severity: 'error' | 'warning'; message: string; help?: string; span: { start: CheckPosition; end: CheckPosition } | null }[];
  tests?: { passed: number; failed: number; cases: { name: string; rule: string; passed: boolean; expected: unknown; actual: unknown; reason?: string }[] };
  formatted?: { locale: string; source: string };
}

/** A module's test cases, as `policy test` reads them. */
export interface ModuleTests {
  cases: TestCase[];
}

/** One case: the rule, its context, and exactly one of `expect`, `expectFields`, `expectError`. */
export interface TestCase {
  name: string;
  rule: string;
  why?: string;
  /** An object keyed by parameter name, or an array in parameter order; default `{}`. */
  context?: Record<string, unknown> | unknown[];
  expect?: unknown;
  expectFields?: Record<string, unknown>;
  /** The code (`PL…`) the evaluation must fail with. */
  expectError?: string;
}

export interface ListPoliciesQuery extends PageQuery {
  policyModule?: string;
  status?: PolicyStatus;
}

export interface VersionSource {
  policyModule: string;
  version: number;
  /** The locale `source` is written in. */
  locale: string;
  source: string;
}

export interface RolledBack {
  policyModule: string;
  version: number;
  versionId: string;
  previousVersion: number | null;
  activatedAt: string;
}

export type WorkflowStatus = 'RUNNING' | 'WAITING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface WorkflowStep {
  name: string;
  kind: 'rule' | 'await';
  status: 'PENDING' | 'WAITING' | 'DONE' | 'FAILED' | 'COMPENSATED';
  /** The rule's answer, the signal's `approved`, or false after a time-out; null until then. */
  result: boolean | null;
}

/** A workflow's state, replayed from its events. */
export interface WorkflowView {
  workflowId: string;
  policyModule: string;
  version: number;
  workflow: string;
  status: WorkflowStatus;
  currentStep: string | null;
  steps: WorkflowStep[];
  finalResult: boolean | null;
  error: string | null;
  startedAt: string;
}

/** A workflow as the list shows it: its state's summary, without context or steps. */
export interface WorkflowSummary {
  workflowId: string;
  policyModule: string;
  workflow: string;
  version: number;
  status: WorkflowStatus;
  /** COMPLETED: true when every step passed, false when a step or a signal said no; null otherwise. */
  finalResult: boolean | null;
  currentStep: string | null;
  startedAt: string;
  /** When it ended; null while it runs or waits. */
  finishedAt: string | null;
}

export interface ListWorkflowsQuery extends PageQuery {
  status?: WorkflowStatus;
  policyModule?: string;
  /** The workflow's declared name. */
  workflow?: string;
  /** ISO 8601 with a zone: started at or after it. */
  startedAfter?: string;
  /** ISO 8601 with a zone: started before it. */
  startedBefore?: string;
}

export interface StartWorkflowInput {
  policyModule: string;
  workflow: string;
  /** The module version; the active one when absent. */
  version?: number;
  context: Record<string, unknown>;
}

export interface WorkflowSignal {
  signal: string;
  approved: boolean;
}

export interface WorkflowEvent {
  sequence: number;
  workflowId: string;
  eventType: string;
  payload: Record<string, unknown>;
  occurredAt: string;
}

export type AnomalyType = 'HIGH_FAILURE_RATE' | 'ZOMBIE_VERSION' | 'PERFORMANCE_DEGRADATION';
export type AnomalyStatus = 'OPEN' | 'VERIFYING' | 'RESOLVED' | 'DISMISSED';
export type AnomalySeverity = 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';

export interface Anomaly {
  id: string;
  type: AnomalyType;
  policyModule: string;
  policyFunction: string;
  versionId: string;
  detectedAt: string;
  status: AnomalyStatus;
  severity: AnomalySeverity;
  summary: string;
}

export interface AnomalyDetail extends Anomaly {
  metrics: Record<string, unknown>;
  recommendedActions: string[];
  lastSeenAt: string;
  statusChangedAt: string | null;
  lastVerification: { verifiedAt: string; outcome: 'RESOLVED' | 'OPEN'; reason: string; metrics: Record<string, unknown> } | null;
}

export interface ListAnomaliesQuery extends PageQuery {
  type?: AnomalyType;
  /** How far back, in days; default 7. */
  days?: number;
}

/** Options of a change that takes an `Idempotency-Key` (a repeat within 24 h replays the stored answer). */
export interface IdempotentRequestOptions extends RequestOptions {
  idempotencyKey?: string;
}

export type WebhookEventType =
  | 'ANOMALY_DETECTED'
  | 'ANOMALY_STATUS_CHANGED'
  | 'POLICY_DEPLOYED'
  | 'POLICY_ROLLED_BACK'
  | 'POLICY_ROLLOUT_STARTED'
  | 'POLICY_ROLLOUT_PROMOTED'
  | 'POLICY_ROLLOUT_ABORTED'
  | 'WORKFLOW_COMPLETED'
  | 'WORKFLOW_FAILED'
  | 'WORKFLOW_CANCELLED';

/** A webhook subscription as the service shows it: never its secret. */
export interface WebhookSubscription {
  id: string;
  url: string;
  events: WebhookEventType[];
  createdAt: string;
}

/** The answer of a subscription's creation: the only one that shows its signing secret. */
export interface CreatedWebhookSubscription extends WebhookSubscription {
  secret: string;
}

export type WebhookDeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED' | 'DEAD';

export interface WebhookDelivery {
  /** The `X-Policy-Webhook-Id` of its requests. */
  id: string;
  eventId: string;
  type: WebhookEventType;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

export interface AnomalySettings {
  defaults: Record<string, number>;
  overrides: Record<string, number>;
  effective: Record<string, number>;
  bounds: Record<string, unknown>;
}

export interface RollupQuery {
  policyModule: string;
  policyFunction: string;
  /** Only this version; default every version evaluated in the window. */
  version?: number;
  /** ISO 8601 with a zone. */
  startTime: string;
  endTime: string;
  step?: 'minute' | 'hour' | 'day';
}

export interface RollupFigures {
  count: number;
  failures: number;
  failureRate: number | null;
  meanMs: number | null;
  maxMs: number | null;
}

export interface RollupSeries {
  policyModule: string;
  policyFunction: string;
  step: 'minute' | 'hour' | 'day';
  from: string;
  to: string;
  series: { version: number; versionId: string; total: RollupFigures; points: (RollupFigures & { at: string })[] }[];
}

export interface PolicyClient {
  /** Any endpoint; throws PolicyHttpError for a non-2xx answer once retries are spent. */
  request<T = unknown>(method: string, path: string, body?: RequestBodyInput, options?: RequestOptions): Promise<PolicyResponse<T>>;
  /** POST /api/v1/policies/evaluate-source. */
  evaluateSource<T = unknown>(input: EvaluateSourceInput, options?: EvaluateOptions): Promise<EvaluateSourceOutcome<T>>;
  /**
   * POST /api/v1/policies/evaluate: a deployed (or built-in) policy by name. A module, rule or
   * version the tenant does not have is a 404 (PolicyHttpError, `ERR_POLICY_…`), not an outcome.
   */
  evaluatePolicy<T = unknown>(input: EvaluatePolicyInput, options?: EvaluateOptions): Promise<EvaluatePolicyOutcome<T>>;
  /**
   * POST /api/v1/policies/evaluate-source/batch: source items and deployed policies by name, mixed;
   * one outcome per item, in order, each succeeding or failing on its own (an unknown policy too).
   */
  evaluateBatch<T = unknown>(items: readonly BatchItem[], options?: EvaluateOptions): Promise<EvaluateBatchOutcome<T>>;
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

  // The registry (signature or bearer token: VIEWER reads, ADMIN deploys and rolls back).
  /** POST /api/v1/policies: deploys a module version, which becomes active (ADMIN; a MEMBER is refused with 403). */
  deployPolicy(input: DeployPolicyInput, options?: RequestOptions): Promise<DeployedModule>;
  /** POST /api/v1/policies/check: compiles the source (and runs `tests`) as a deploy would, storing nothing (MEMBER). */
  checkPolicy(input: CheckPolicyInput, options?: RequestOptions): Promise<PolicyCheck>;
  /** GET /api/v1/policies: the built-in policies and the tenant's, every version, paged. */
  listPolicies(query?: ListPoliciesQuery, options?: RequestOptions): Promise<Page<PolicyView>>;
  /** GET /api/v1/policies/{id}, id `<module>.<rule>@<version>`. */
  getPolicy(id: string, options?: RequestOptions): Promise<PolicyDetail>;
  /** GET /api/v1/policies/{module}/versions. */
  listPolicyVersions(policyModule: string, query?: PageQuery, options?: RequestOptions): Promise<Page<ModuleVersionSummary>>;
  /** GET /api/v1/policies/{module}/versions/{version}. */
  getPolicyVersion(policyModule: string, version: number, options?: RequestOptions): Promise<ModuleVersion>;
  /** GET /api/v1/policies/{module}/versions/{version}/source, printed in `locale` when given. */
  getPolicyVersionSource(policyModule: string, version: number, query?: { locale?: string }, options?: RequestOptions): Promise<VersionSource>;
  /** POST /api/v1/policies/{module}/rollback (ADMIN). */
  rollbackPolicy(policyModule: string, version: number, options?: RequestOptions): Promise<RolledBack>;
  /** GET /api/v1/policies/{module}/rollout (VIEWER). */
  getRollout(policyModule: string, options?: RequestOptions): Promise<RolloutView>;
  /** POST /api/v1/policies/{module}/rollout/promote or /abort (ADMIN). */
  endRollout(policyModule: string, step: 'promote' | 'abort', reason?: string, options?: RequestOptions): Promise<RolloutView>;

  // Workflows (signature or bearer token, MEMBER; the list and the events take a bearer token only).
  /** POST /api/v1/workflows: 201 with the new workflow's id. */
  startWorkflow(input: StartWorkflowInput, options?: RequestOptions): Promise<{ workflowId: string }>;
  /** GET /api/v1/workflows: the tenant's workflows, newest start first. Bearer token only. */
  listWorkflows(query?: ListWorkflowsQuery, options?: RequestOptions): Promise<Page<WorkflowSummary>>;
  /** GET /api/v1/workflows/{id}. */
  getWorkflow(workflowId: string, options?: RequestOptions): Promise<WorkflowView>;
  /** POST /api/v1/workflows/{id}/signals: a 409 until the workflow waits for that signal. */
  signalWorkflow(workflowId: string, signal: WorkflowSignal, options?: RequestOptions): Promise<WorkflowView>;
  /** POST /api/v1/workflows/{id}/cancel. */
  cancelWorkflow(workflowId: string, options?: RequestOptions): Promise<WorkflowView>;
  /** GET /api/v1/workflows/{id}/events?fromSeq=…: at most 1,000 events a call; ask again from the last sequence + 1 until `[]`. Bearer token only. */
  workflowEvents(workflowId: string, query?: { fromSeq?: number }, options?: RequestOptions): Promise<WorkflowEvent[]>;

  // Audit (ADMIN, bearer token).
  /** GET /api/v1/audit: the tenant's records, newest first. */
  listAudit(query?: AuditListQuery, options?: RequestOptions): Promise<AuditRecord[]>;
  /** GET /api/v1/audit/type/{eventType}. */
  listAuditByType(eventType: string, query?: AuditListQuery, options?: RequestOptions): Promise<AuditRecord[]>;
  /** GET /api/v1/audit/policy/{module}/{function}. */
  listAuditByPolicy(policyModule: string, policyFunction: string, query?: AuditListQuery, options?: RequestOptions): Promise<AuditRecord[]>;
  /** GET /api/v1/audit/range: records with startTime ≤ occurredAt ≤ endTime (ISO 8601 with a zone). */
  listAuditRange(query: AuditListQuery & { startTime: string; endTime: string }, options?: RequestOptions): Promise<AuditRecord[]>;
  /** GET /api/v1/audit/verify (`full: true`: the whole chain from seq 1). */
  verifyAudit(query?: { full?: boolean }, options?: RequestOptions): Promise<ChainVerification>;
  /**
   * GET /api/v1/audit/records/{id}: the record a receipt (or an id) names, linked or not, as the
   * service reports it (checkReceipt checks it). A 404 (`ERR_AUDIT_RECORD_NOT_FOUND`) throws.
   */
  getAuditRecord(receiptOrId: AuditReceipt | string, options?: RequestOptions): Promise<AuditRecordView>;
  /** GET /api/v1/audit/rollups: per-version series of evaluations. */
  getRollups(query: RollupQuery, options?: RequestOptions): Promise<RollupSeries>;

  // Anomalies (ADMIN, bearer token).
  /** GET /api/v1/audit/anomalies: newest first. */
  listAnomalies(query?: ListAnomaliesQuery, options?: RequestOptions): Promise<Page<Anomaly>>;
  /** GET /api/v1/audit/anomalies/{id}. */
  getAnomaly(id: string, options?: RequestOptions): Promise<AnomalyDetail>;
  /** POST /api/v1/audit/anomalies/{id}/actions/verify: 202, the verification job is queued. */
  verifyAnomaly(id: string, options?: IdempotentRequestOptions): Promise<void>;
  /** PATCH /api/v1/audit/anomalies/{id}/status: OPEN → RESOLVED or DISMISSED, or back to OPEN. */
  setAnomalyStatus(
    id: string,
    change: { status: 'OPEN' | 'RESOLVED' | 'DISMISSED'; note?: string | null },
    options?: IdempotentRequestOptions,
  ): Promise<AnomalyDetail>;
  /** GET /api/v1/audit/anomaly-settings. */
  getAnomalySettings(options?: RequestOptions): Promise<AnomalySettings>;
  /** PUT /api/v1/audit/anomaly-settings: replaces the tenant's overrides (null: back to the default). */
  setAnomalySettings(overrides: Record<string, number | null>, options?: RequestOptions): Promise<AnomalySettings>;

  // Webhooks (ADMIN, bearer token).
  /** POST /api/v1/webhooks: the subscription with its signing secret, shown this once. */
  createWebhook(input: { url: string; events: WebhookEventType[] }, options?: RequestOptions): Promise<CreatedWebhookSubscription>;
  /** GET /api/v1/webhooks: oldest first. */
  listWebhooks(query?: PageQuery, options?: RequestOptions): Promise<Page<WebhookSubscription>>;
  /** GET /api/v1/webhooks/{id}. */
  getWebhook(id: string, options?: RequestOptions): Promise<WebhookSubscription>;
  /** DELETE /api/v1/webhooks/{id}: 204, its deliveries go with it. */
  deleteWebhook(id: string, options?: RequestOptions): Promise<void>;
  /** GET /api/v1/webhooks/{id}/deliveries: newest first. */
  listWebhookDeliveries(id: string, query?: PageQuery, options?: RequestOptions): Promise<Page<WebhookDelivery>>;
  /** POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver: 202, one more attempt is queued now. */
  redeliverWebhook(id: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDelivery>;
}
