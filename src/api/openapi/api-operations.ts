import { z } from 'zod';
import { ROLLUP_SERIES_MAX_POINTS, ROLLUP_SERIES_MAX_VERSIONS, ROLLUP_STEPS } from '../../anomalies/index.js';
import { AUDIT_LIST_DEFAULT_LIMIT, AUDIT_LIST_MAX_LIMIT, AUDIT_LIST_RECORDS_PER_POINT } from '../../audit/index.js';
import type { Role } from '../../auth/index.js';
import { MAX_NAME_LENGTH } from '../../kernel/index.js';
import { SUPPORTED_LOCALES } from '../../language/index.js';
import { MAX_RULES_PER_MODULE, MAX_VERSIONS_PER_TENANT, POLICY_PAGE_DEFAULT_SIZE, POLICY_PAGE_MAX_PAGE, POLICY_PAGE_MAX_SIZE } from '../../policies/index.js';
import { batchEvaluationBodySchema, sourceEvaluationBodySchema, storedEvaluationBodySchema } from '../../evaluation/index.js';
import { workflowSignalBodySchema, workflowStartBodySchema } from '../../workflows/index.js';
import { AUDIT_EVENT_TYPES } from '../audit-event-types.js';
import { statusBodySchema } from '../routes/anomalies.js';
import { deploySchema, rollbackSchema } from '../routes/policies.js';
import * as answers from './response-schemas.js';

/**
 * How a route authenticates: `bearer` (REST: token and tenant header), `signed-or-bearer`
 * (evaluation and registry: HMAC signature, or a token instead), `signed` (GraphQL), `none`.
 */
export type Authentication = 'none' | 'bearer' | 'signed-or-bearer' | 'signed';

export interface ApiOperation {
  method: 'get' | 'post' | 'put' | 'patch';
  /** OpenAPI form: `/api/v1/policies/{id}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  auth: Authentication;
  role?: Role;
  pathParams?: Record<string, string>;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Takes `Idempotency-Key` (repeats replay the stored answer). */
  idempotent?: boolean;
  success: { status: 200 | 201 | 202; schema?: z.ZodType; description: string; contentType?: string };
  /** Error statuses of the route itself, besides those its authentication implies. */
  errors: Partial<Record<400 | 403 | 404 | 405 | 409 | 413 | 422 | 500 | 503, string>>;
}

const DEPENDENCY_DOWN =
  'Redis or the store does not answer: the rate limit, a signature\'s nonce or the data cannot be read (ERR_SERVICE_UNAVAILABLE; Retry-After says when to retry)';

/** What every route of an authentication kind can answer, whatever it does. */
export const AUTHENTICATION_ERRORS: Readonly<Record<Authentication, Partial<Record<400 | 401 | 403 | 413 | 429 | 503, string>>>> = {
  none: {},
  bearer: {
    400: 'X-Tenant-ID missing or ill-formed (ERR_TENANT_HEADER_*)',
    401: 'no valid bearer token (ERR_AUTH_TOKEN_MISSING, ERR_AUTH_TOKEN_INVALID, ERR_AUTH_TOKEN_EXPIRED)',
    403: 'the token belongs to another tenant or lacks the role (ERR_AUTH_TENANT_MISMATCH, ERR_AUTH_ROLE_INSUFFICIENT)',
    429: 'the tenant\'s rate limit is spent (ERR_RATE_LIMIT_EXCEEDED; Retry-After says when to retry)',
    503: DEPENDENCY_DOWN,
  },
  'signed-or-bearer': {
    400: 'X-Tenant-Id missing or ill-formed, or the body is compressed',
    401: 'a bearer token was sent and is not valid',
    403: 'signature missing or invalid, timestamp stale, nonce reused, or role insufficient (ERR_AUTH_*)',
    413: 'body larger than the limit (ERR_REQUEST_BODY_TOO_LARGE)',
    429: 'the tenant\'s rate limit is spent (ERR_RATE_LIMIT_EXCEEDED; Retry-After says when to retry)',
    503: DEPENDENCY_DOWN,
  },
  signed: {
    400: 'X-Tenant-Id missing or ill-formed',
    403: 'signature missing or invalid, timestamp stale, nonce reused, or role insufficient (ERR_AUTH_*)',
    413: 'body larger than the limit',
    429: 'the tenant\'s rate limit is spent',
    503: DEPENDENCY_DOWN,
  },
};

const policyName = (what: string) => z.string().min(1).max(MAX_NAME_LENGTH).describe(what);
const rollupQuery = z.object({
  policyModule: policyName('module name'),
  policyFunction: policyName('rule name'),
  version: z.number().int().min(0).optional().describe('only this version (0: the built-in module); default every version evaluated in the window'),
  startTime: z.string().describe('ISO 8601 with a zone; the step holding it is the first point'),
  endTime: z.string().describe('ISO 8601 with a zone; the step holding it is the last point'),
  step: z.enum(ROLLUP_STEPS).optional().describe('UTC minute, hour or day per point (default minute)'),
});

const limitAndBefore = z.object({
  limit: z.number().int().min(1).max(AUDIT_LIST_MAX_LIMIT).optional().describe(`Most records (default ${AUDIT_LIST_DEFAULT_LIMIT}); the rate limit spends one point per ${AUDIT_LIST_RECORDS_PER_POINT} asked for`),
  before: z.number().int().min(1).optional().describe('Only records with a smaller seq (paging)'),
});
/** `page` and `size` of the registry's lists. */
const pageQuery = z.object({
  page: z.number().int().min(0).max(POLICY_PAGE_MAX_PAGE).optional().describe('zero-based (default 0)'),
  size: z.number().int().min(1).max(POLICY_PAGE_MAX_SIZE).optional().describe(`items per page (default ${POLICY_PAGE_DEFAULT_SIZE})`),
});
const trace = z.object({ trace: z.enum(['true', 'false']).optional().describe('Return the decision trace') });
const unavailable = 'no worker answered or Redis is away (ERR_EVALUATION_UNAVAILABLE…); retry later';
/** A route's own 403 replaces its authentication's in the document, so it repeats that one too. */
const otherTenantsWorkflow = (auth: Authentication) => `${AUTHENTICATION_ERRORS[auth][403]}; or the workflow belongs to another tenant (ERR_WORKFLOW_OTHER_TENANT)`;

/** Every route of the service, in the order of the README. A test checks them against the router. */
export const API_OPERATIONS: readonly ApiOperation[] = [
  { method: 'get', path: '/healthz', tag: 'operations', summary: 'Liveness', auth: 'none', success: { status: 200, schema: answers.health, description: 'the process runs' }, errors: {} },
  { method: 'get', path: '/readyz', tag: 'operations', summary: 'Readiness of the store and Redis', auth: 'none', success: { status: 200, schema: answers.readiness, description: 'both answer' }, errors: { 503: 'the store or Redis does not answer (ERR_HEALTH_NOT_READY)' } },
  { method: 'get', path: '/version', tag: 'operations', summary: 'What is running', auth: 'none', success: { status: 200, schema: answers.version, description: 'the build' }, errors: {} },
  { method: 'get', path: '/metrics', tag: 'operations', summary: 'Prometheus metrics of this process', auth: 'none', success: { status: 200, description: 'text exposition format', contentType: 'text/plain' }, errors: {} },
  { method: 'get', path: '/openapi.json', tag: 'operations', summary: 'This document', auth: 'none', success: { status: 200, description: 'OpenAPI 3.1' }, errors: {} },

  { method: 'get', path: '/api/v1/audit', tag: 'audit', summary: 'The tenant\'s audit records, newest first', auth: 'bearer', role: 'ADMIN', query: limitAndBefore, success: { status: 200, schema: z.array(answers.auditRecord), description: 'records' }, errors: {} },
  { method: 'get', path: '/api/v1/audit/verify', tag: 'audit', summary: 'Verify the tenant\'s chain', description: 'Reads and hashes only the records appended since the tenant\'s last verification in this process (an unchanged head answers at once), unless `full=true` asks for, or AUDIT_VERIFY_FULL_INTERVAL_SECONDS calls for, a walk from seq 1. Concurrent calls of a tenant share one walk.', auth: 'bearer', role: 'ADMIN', query: z.object({ full: z.enum(['true', 'false']).optional().describe('Walk the whole chain from seq 1') }), success: { status: 200, schema: answers.chainVerification, description: 'the verification' }, errors: { 400: 'a `full` other than true or false (ERR_REQUEST_QUERY_INVALID)' } },
  { method: 'get', path: '/api/v1/audit/type/{eventType}', tag: 'audit', summary: 'Records of one event type', auth: 'bearer', role: 'ADMIN', pathParams: { eventType: `${AUDIT_EVENT_TYPES.slice(0, -1).join(', ')} or ${AUDIT_EVENT_TYPES.at(-1)}` }, query: limitAndBefore, success: { status: 200, schema: z.array(answers.auditRecord), description: 'records' }, errors: { 400: 'unknown event type (ERR_REQUEST_PATH_INVALID, listing the known ones), or bad paging' } },
  { method: 'get', path: '/api/v1/audit/policy/{policyModule}/{policyFunction}', tag: 'audit', summary: 'Records of one policy function', auth: 'bearer', role: 'ADMIN', pathParams: { policyModule: 'module name', policyFunction: 'rule name' }, query: limitAndBefore, success: { status: 200, schema: z.array(answers.auditRecord), description: 'records' }, errors: { 400: 'bad path or paging' } },
  { method: 'get', path: '/api/v1/audit/range', tag: 'audit', summary: 'Records within a time window', auth: 'bearer', role: 'ADMIN', query: limitAndBefore.extend({ startTime: z.string().describe('ISO 8601, inclusive'), endTime: z.string().describe('ISO 8601, inclusive') }), success: { status: 200, schema: z.array(answers.auditRecord), description: 'records' }, errors: { 400: 'missing or malformed time, or start after end (ERR_REQUEST_QUERY_INVALID)' } },

  { method: 'get', path: '/api/v1/audit/anomalies', tag: 'anomalies', summary: 'Anomalies, newest first, paged', auth: 'bearer', role: 'ADMIN', query: z.object({ type: z.enum(['HIGH_FAILURE_RATE', 'ZOMBIE_VERSION', 'PERFORMANCE_DEGRADATION']).optional(), days: z.number().int().min(1).max(3650).optional(), page: z.number().int().min(0).optional(), size: z.number().int().min(1).max(100).optional() }), success: { status: 200, schema: answers.anomalyPage, description: 'one page' }, errors: { 400: 'bad query (ERR_REQUEST_QUERY_INVALID)' } },
  { method: 'get', path: '/api/v1/audit/anomalies/{id}', tag: 'anomalies', summary: 'One anomaly with its metrics and recommended actions', auth: 'bearer', role: 'ADMIN', pathParams: { id: 'anomaly id' }, success: { status: 200, schema: answers.anomalyDetail, description: 'the anomaly' }, errors: { 404: 'no such anomaly for the tenant' } },
  { method: 'post', path: '/api/v1/audit/anomalies/{id}/actions/verify', tag: 'anomalies', summary: 'Start a verification job', description: 'Poll the detail: VERIFYING, then RESOLVED or OPEN.', auth: 'bearer', role: 'ADMIN', pathParams: { id: 'anomaly id' }, idempotent: true, success: { status: 202, description: 'the job is queued' }, errors: { 404: 'no such anomaly', 409: 'not in a status that can be verified, or the same Idempotency-Key is still running', 422: 'Idempotency-Key reused for another request', 503: 'the verification queue is unavailable' } },
  { method: 'patch', path: '/api/v1/audit/anomalies/{id}/status', tag: 'anomalies', summary: 'Resolve, dismiss or reopen', auth: 'bearer', role: 'ADMIN', pathParams: { id: 'anomaly id' }, body: statusBodySchema, idempotent: true, success: { status: 200, schema: answers.anomalyDetail, description: 'the anomaly after the change' }, errors: { 400: 'bad body or a status that cannot be set (ERR_ANOMALY_REQUEST_INVALID)', 404: 'no such anomaly', 409: 'the transition is not allowed, or the same Idempotency-Key is still running', 422: 'Idempotency-Key reused for another request' } },
  { method: 'get', path: '/api/v1/audit/anomaly-settings', tag: 'anomalies', summary: 'The tenant\'s detection settings', auth: 'bearer', role: 'ADMIN', success: { status: 200, schema: answers.anomalySettings, description: 'defaults, overrides, effective values and bounds' }, errors: {} },
  { method: 'put', path: '/api/v1/audit/anomaly-settings', tag: 'anomalies', summary: 'Replace the tenant\'s overrides', auth: 'bearer', role: 'ADMIN', body: answers.anomalySettingsBody, success: { status: 200, schema: answers.anomalySettings, description: 'the settings now' }, errors: { 400: 'unknown setting or a value out of bounds' } },
  { method: 'get', path: '/api/v1/audit/rollups', tag: 'anomalies', summary: 'A policy function\'s evaluations per version over time', description: `The per-minute rollups summed into one point per step: count, failures, failure rate, mean and longest time. Every series has a point for every step; a step without evaluations has count 0 and null rates. At most ${ROLLUP_SERIES_MAX_POINTS.toLocaleString('en-US')} points per series and ${ROLLUP_SERIES_MAX_VERSIONS} versions per answer.`, auth: 'bearer', role: 'ADMIN', query: rollupQuery, success: { status: 200, schema: answers.rollupSeries, description: 'one series per version' }, errors: { 400: `a missing or malformed parameter, a start after the end, an unknown step, more than ${ROLLUP_SERIES_MAX_POINTS.toLocaleString('en-US')} points per series, or more than ${ROLLUP_SERIES_MAX_VERSIONS} versions evaluated in the window without \`version\` (ERR_REQUEST_QUERY_INVALID)` } },

  { method: 'post', path: '/api/v1/policies/evaluate-source', tag: 'evaluation', summary: 'Evaluate one rule of a source sent in the request', auth: 'signed-or-bearer', role: 'MEMBER', query: trace, body: sourceEvaluationBodySchema, success: { status: 200, schema: answers.evaluationAnswer, description: 'the result, or the evaluation\'s error (still 200)' }, errors: { 400: 'bad body (ERR_EVALUATION_REQUEST_INVALID) or query', 503: unavailable } },
  { method: 'post', path: '/api/v1/policies/evaluate-source/batch', tag: 'evaluation', summary: 'Evaluate many items at once', description: 'Items are source items (as evaluate-source) or references to deployed policies (as /api/v1/policies/evaluate); each fails on its own. The rate limit spends one point per item.', auth: 'signed-or-bearer', role: 'MEMBER', query: trace, body: batchEvaluationBodySchema.extend({ items: z.array(z.union([sourceEvaluationBodySchema, storedEvaluationBodySchema])) }), success: { status: 200, schema: answers.batchAnswer, description: 'one answer per item' }, errors: { 400: 'bad envelope or too many items', 503: unavailable } },
  { method: 'post', path: '/api/v1/policies', tag: 'registry', summary: 'Deploy a module version (it becomes active)', auth: 'signed-or-bearer', role: 'MEMBER', body: deploySchema, success: { status: 201, schema: answers.deployed, description: 'the new version, its policies (without the source, which is the version\'s) and warnings' }, errors: { 400: `the source does not compile (ERR_POLICY_COMPILE, with diagnostics), the module defines more than ${MAX_RULES_PER_MODULE} rules (ERR_POLICY_TOO_MANY_RULES), or a bad body`, 409: `the tenant has stored ${MAX_VERSIONS_PER_TENANT} versions, the most it may (ERR_POLICY_VERSION_QUOTA_EXCEEDED)`, 503: unavailable } },
  { method: 'get', path: '/api/v1/policies', tag: 'registry', summary: 'The built-in policies and the tenant\'s, paged', description: `One policy per rule and version, without the source (the version's: \`GET /api/v1/policies/{id}\` or \`…/versions/{version}/source\`). The built-in ones (version 0) come first, by module; then the tenant's own by module, version and rule.`, auth: 'signed-or-bearer', role: 'VIEWER', query: pageQuery.extend({ policyModule: z.string().optional(), status: z.enum(['ACTIVE', 'SUPERSEDED', 'RETIRED']).optional() }), success: { status: 200, schema: answers.policyPage, description: 'one page' }, errors: { 400: 'bad query (ERR_REQUEST_QUERY_INVALID)' } },
  { method: 'post', path: '/api/v1/policies/evaluate', tag: 'registry', summary: 'Evaluate a deployed policy by name', auth: 'signed-or-bearer', role: 'MEMBER', query: trace, body: storedEvaluationBodySchema, success: { status: 200, schema: answers.storedEvaluationAnswer, description: 'the result and the version that answered' }, errors: { 400: 'bad body', 404: 'no such module, version or rule for the tenant', 503: unavailable } },
  { method: 'get', path: '/api/v1/policies/{policyModule}/versions', tag: 'registry', summary: 'Versions of a module, ascending, paged', description: 'The built-in version 0 first when the service has the module, then the tenant\'s versions 1, 2, …; each with its number of rules, without their signatures (`…/versions/{version}`) or its source (`…/versions/{version}/source`).', auth: 'signed-or-bearer', role: 'VIEWER', pathParams: { policyModule: 'module name' }, query: pageQuery, success: { status: 200, schema: answers.moduleVersionPage, description: 'one page' }, errors: { 400: 'bad path or query (ERR_REQUEST_PATH_INVALID, ERR_REQUEST_QUERY_INVALID)', 404: 'no such module for the tenant' } },
  { method: 'get', path: '/api/v1/policies/{policyModule}/versions/{version}', tag: 'registry', summary: 'One version of a module', auth: 'signed-or-bearer', role: 'VIEWER', pathParams: { policyModule: 'module name', version: 'version number (0: the built-in module)' }, success: { status: 200, schema: answers.moduleVersion, description: 'the version with its rules\' signatures, without its source' }, errors: { 400: 'bad path (ERR_REQUEST_PATH_INVALID)', 404: 'no such module or version for the tenant' } },
  { method: 'get', path: '/api/v1/policies/{policyModule}/versions/{version}/source', tag: 'registry', summary: 'A version\'s source, printed in another locale', description: `The stored source of the version (0: the built-in module), or with \`locale\` the module printed by the formatter in that locale (as \`policy fmt --locale\`: keywords, punctuation and layout of the locale; names and comments unchanged). A locale equal to the stored one answers the source as stored.`, auth: 'signed-or-bearer', role: 'VIEWER', pathParams: { policyModule: 'module name', version: 'version number (0: the built-in module)' }, query: z.object({ locale: z.enum(SUPPORTED_LOCALES).optional().describe('print the source in this locale; default as stored') }), success: { status: 200, schema: answers.versionSource, description: 'the source and its locale' }, errors: { 400: `a bad path, or a locale other than ${SUPPORTED_LOCALES.join(', ')} (ERR_REQUEST_QUERY_INVALID)`, 404: 'no such module or version for the tenant' } },
  { method: 'post', path: '/api/v1/policies/{policyModule}/rollback', tag: 'registry', summary: 'Activate another version', auth: 'signed-or-bearer', role: 'ADMIN', pathParams: { policyModule: 'module name' }, body: rollbackSchema, success: { status: 200, schema: answers.rolledBack, description: 'the activation' }, errors: { 400: 'bad body', 404: 'no such module or version', 409: 'that version is already active' } },
  { method: 'get', path: '/api/v1/policies/{id}', tag: 'registry', summary: 'One policy (module, rule and version)', auth: 'signed-or-bearer', role: 'VIEWER', pathParams: { id: 'policy id' }, success: { status: 200, schema: answers.policyDetail, description: 'the policy, with its version\'s source' }, errors: { 404: 'no such policy for the tenant' } },

  { method: 'post', path: '/api/v1/workflows', tag: 'workflows', summary: 'Start a workflow of a deployed module', auth: 'signed-or-bearer', role: 'MEMBER', body: workflowStartBodySchema, success: { status: 201, schema: answers.workflowStarted, description: 'the new workflow\'s id' }, errors: { 400: 'bad body or context (ERR_WORKFLOW_REQUEST_INVALID)', 404: 'no such module or workflow', 409: 'a quota of the tenant\'s workflows is reached: unfinished workflows (ERR_WORKFLOW_UNFINISHED_LIMIT) or stored bytes (ERR_WORKFLOW_STORAGE_LIMIT)', 413: 'body larger than the limit (ERR_REQUEST_BODY_TOO_LARGE), or `context` larger than WORKFLOW_CONTEXT_MAX_BYTES as JSON (ERR_WORKFLOW_CONTEXT_TOO_LARGE)', 422: 'that module version\'s workflow cannot be compiled', 503: 'no worker compiled the module in time; retry later (once the start is stored it is answered 201 even if its run cannot be queued: the resume sweep runs it)' } },
  { method: 'get', path: '/api/v1/workflows/{workflowId}/events', tag: 'workflows', summary: 'A workflow\'s events from a sequence on', auth: 'bearer', role: 'MEMBER', pathParams: { workflowId: 'workflow id' }, query: z.object({ fromSeq: z.number().int().min(0).optional().describe('default 0') }), success: { status: 200, schema: z.array(answers.workflowEvent), description: 'events, ascending, at most 1,000 (a shorter page does not mean the end: ask again from the last sequence + 1 until `[]`)' }, errors: { 400: 'bad fromSeq', 403: otherTenantsWorkflow('bearer'), 404: 'no such workflow' } },
  { method: 'get', path: '/api/v1/workflows/{workflowId}', tag: 'workflows', summary: 'A workflow\'s state, replayed from its events', auth: 'signed-or-bearer', role: 'MEMBER', pathParams: { workflowId: 'workflow id' }, success: { status: 200, schema: answers.workflow, description: 'the state' }, errors: { 403: otherTenantsWorkflow('signed-or-bearer'), 404: 'no such workflow for the tenant', 503: 'no worker compiled the module in time; retry later' } },
  { method: 'post', path: '/api/v1/workflows/{workflowId}/signals', tag: 'workflows', summary: 'Send the signal an Await step waits for', auth: 'signed-or-bearer', role: 'MEMBER', pathParams: { workflowId: 'workflow id' }, body: workflowSignalBodySchema, success: { status: 200, schema: answers.workflow, description: 'the state after the signal' }, errors: { 400: 'bad body', 403: otherTenantsWorkflow('signed-or-bearer'), 404: 'no such workflow', 409: 'the workflow does not wait for that signal', 503: 'no worker compiled the module in time; retry later' } },
  { method: 'post', path: '/api/v1/workflows/{workflowId}/cancel', tag: 'workflows', summary: 'Cancel (compensating what ran)', auth: 'signed-or-bearer', role: 'MEMBER', pathParams: { workflowId: 'workflow id' }, success: { status: 200, schema: answers.workflow, description: 'the state after the request' }, errors: { 403: otherTenantsWorkflow('signed-or-bearer'), 404: 'no such workflow', 409: 'the workflow has ended', 503: 'no worker compiled the module in time; retry later' } },

  { method: 'get', path: '/graphql', tag: 'graphql', summary: 'A GraphQL query in the query string', auth: 'signed', role: 'VIEWER', query: z.object({ query: z.string(), variables: z.string().optional(), operationName: z.string().optional() }), success: { status: 200, schema: answers.graphqlAnswer, description: 'GraphQL over HTTP' }, errors: { 400: 'not a valid GraphQL request', 405: 'a mutation sent with GET' } },
  { method: 'post', path: '/graphql', tag: 'graphql', summary: 'A GraphQL query (policy lookups and domain decisions)', auth: 'signed', role: 'VIEWER', body: z.object({ query: z.string(), variables: z.record(z.string(), z.unknown()).optional(), operationName: z.string().optional() }), success: { status: 200, schema: answers.graphqlAnswer, description: 'GraphQL over HTTP' }, errors: { 400: 'not a valid GraphQL request, a mutation, or over a limit' } },
];
