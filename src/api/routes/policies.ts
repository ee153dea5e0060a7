import { z } from 'zod';
import {
  type ShadowSample,
  DEFAULT_EVALUATION_LOCALE,
  MAX_LOCALE_LENGTH,
  parseStoredEvaluationBody,
  publicDiagnostic,
  storedEvaluationBodySchema,
  toResponseItem,
  type EvaluationService,
  type RequestLimits,
} from '../../evaluation/index.js';
import { AuthErrorCode, AuthorizationError, roleSatisfies, type Role } from '../../auth/index.js';
import { describeSchemaProblem } from '../../errors/index.js';
import { hasLoneSurrogate, isName, MAX_NAME_LENGTH, pageView } from '../../kernel/index.js';
import { MAX_SOURCE_BYTES, resolveLocale, SUPPORTED_LOCALES, type Locale } from '../../language/index.js';
import {
  MAX_RULES_PER_MODULE,
  MAX_TEST_CASES,
  MAX_VERSIONS_PER_TENANT,
  moduleTestsSchema,
  PolicyCompileError,
  PolicyTestsFailedError,
  PolicyErrorCode,
  ROLLOUT_MODES,
  POLICY_PAGE_DEFAULT_SIZE,
  POLICY_PAGE_MAX_PAGE,
  POLICY_PAGE_MAX_SIZE,
  POLICY_STATUSES,
  type PolicyCatalog,
  type PolicyDetail,
  type PolicyRecord,
  type PolicyStatus,
  type RolloutControl,
  type RolloutPlan,
} from '../../policies/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext } from '../app-types.js';
import { RECEIPT_HEADERS, setReceiptHeaders } from '../audit-receipt.js';
import { ApiErrorCode } from '../error-codes.js';
import { errorEnvelope } from '../error-envelope.js';
import * as answers from '../openapi/response-schemas.js';
import { integerParam, queryValue } from '../query-params.js';
import { pathValue } from '../route-context.js';
import { bindRoutes, declareRoutes, type RouteGroup, type SignedRequestOptions } from '../route-declaration.js';
import { callerOf, EVALUATION_UNAVAILABLE, requesterGone, traceParam, traceQuery, unlessUnavailable } from './evaluation-route-kit.js';

export const POLICIES_ROUTE = '/api/v1/policies';
const CHECK_POLICY_ROUTE = '/api/v1/policies/check';
export const EVALUATE_STORED_POLICY_ROUTE = '/api/v1/policies/evaluate';

export interface PolicyRouteOptions extends SignedRequestOptions {
  catalog: PolicyCatalog;
  rollouts: RolloutControl;
  /** Evaluations of deployed policies go the one evaluation path. */
  service: Pick<EvaluationService, 'evaluate'>;
  limits?: RequestLimits;
}

/** The longest `stickyKey`: a dotted path into the context. */
const MAX_STICKY_KEY_LENGTH = 256;
const DEPLOY_MODES = ['active', ...ROLLOUT_MODES] as const;

const rolloutSchema = z.strictObject({
  mode: z.enum(DEPLOY_MODES),
  percent: z.number().int().min(1).max(100).optional(),
  stickyKey: z.string().min(1).max(MAX_STICKY_KEY_LENGTH).regex(/^[^.]+(\.[^.]+)*$/).optional(),
  captureContexts: z.boolean().optional(),
});

const testsField = (what: string) =>
  moduleTestsSchema
    .optional()
    .describe(`the content of \`<module>.tests.json\` (\`policy test\`'s format): at most ${MAX_TEST_CASES} cases, each run in the engine; ${what}`);

export const deploySchema = z.strictObject({
  source: z.string().min(1),
  locale: z.string().min(1).max(MAX_LOCALE_LENGTH).optional(),
  tests: testsField('all must pass before anything is stored'),
  rollout: rolloutSchema
    .optional()
    .describe(
      '`active` (default): the version answers every request at once (ADMIN). `shadow`: it answers nobody; `percent` (default 100) of the active version\'s evaluations are also run on it off the answer path and compared (MEMBER; with `captureContexts`, ADMIN). `canary`: `percent` (required) of evaluations are answered by it, sticky by the context value at `stickyKey` when given (ADMIN)',
    ),
});

const checkSchema = z.strictObject({
  source: z.string().min(1),
  locale: z.enum(SUPPORTED_LOCALES).optional().describe('the locale the source is written in; default: the one its module header names (`Module`, `Modul`, `模块`), else en-US, as `policy check`'),
  tests: testsField('each reported passed or failed'),
  showIn: z.enum(SUPPORTED_LOCALES).optional().describe('also print the module in this locale (as `policy fmt --locale`), when it compiles'),
});

export const endRolloutSchema = z.strictObject({ reason: z.string().min(1).max(500).optional() });

/** A deploy or a check spends a point, and one more per test case it carries (each is an evaluation). */
function deployCost(body: unknown): number {
  const tests = typeof body === 'object' && body !== null ? (body as { tests?: { cases?: unknown } }).tests : undefined;
  const cases = typeof tests === 'object' && tests !== null ? tests.cases : undefined;
  return 1 + (Array.isArray(cases) && cases.length <= MAX_TEST_CASES ? cases.length : 0);
}
export const rollbackSchema = z.strictObject({ version: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

const FIELD_RULES: Record<string, string> = {
  source: 'a non-empty string (the policy module source text)',
  locale: `a language tag string of 1 to ${MAX_LOCALE_LENGTH} characters, e.g. \`en-US\``,
  tests: `an object \`{cases: [...]}\` of 1 to ${MAX_TEST_CASES} cases, each \`{name, rule, context?, why?}\` with exactly one of \`expect\`, \`expectFields\`, \`expectError\``,
  version: 'a whole number of at least 0 (0 is the built-in module)',
  rollout: `an object \`{mode, percent?, stickyKey?, captureContexts?}\`: \`mode\` one of ${DEPLOY_MODES.join(', ')}, \`percent\` a whole number from 1 to 100, \`stickyKey\` a dotted path of at most ${MAX_STICKY_KEY_LENGTH} characters, \`captureContexts\` a boolean`,
  reason: 'a string of 1 to 500 characters',
};
/** A check reads only the locales the language has: a wrong tag is the caller's to fix, not a diagnostic. */
const CHECK_FIELD_RULES: Record<string, string> = {
  ...FIELD_RULES,
  locale: `one of ${SUPPORTED_LOCALES.join(', ')}`,
  showIn: `one of ${SUPPORTED_LOCALES.join(', ')}`,
};

/** The rollout a deploy asks for; undefined for an active deploy. Each mode takes only its own fields. */
function rolloutPlanOf(rollout: z.infer<typeof rolloutSchema> | undefined): RolloutPlan | undefined {
  if (rollout === undefined || rollout.mode === 'active') {
    const extra = (['percent', 'stickyKey', 'captureContexts'] as const).find((field) => rollout?.[field] !== undefined);
    if (extra !== undefined) throw new ApiError(400, PolicyErrorCode.REQUEST_INVALID, `\`rollout.${extra}\` applies to shadow and canary rollouts only`);
    return undefined;
  }
  if (rollout.stickyKey !== undefined && hasLoneSurrogate(rollout.stickyKey)) {
    throw new ApiError(400, PolicyErrorCode.REQUEST_INVALID, '`rollout.stickyKey` must be well-formed text (it has a lone surrogate)');
  }
  if (rollout.mode === 'canary') {
    if (rollout.percent === undefined) throw new ApiError(400, PolicyErrorCode.REQUEST_INVALID, 'a canary rollout needs `rollout.percent`, the share of evaluations the new version answers (1-100)');
    if (rollout.captureContexts !== undefined) throw new ApiError(400, PolicyErrorCode.REQUEST_INVALID, '`rollout.captureContexts` applies to shadow rollouts only');
    return { mode: 'canary', percent: rollout.percent, stickyKey: rollout.stickyKey ?? null, captureContexts: false };
  }
  if (rollout.stickyKey !== undefined) throw new ApiError(400, PolicyErrorCode.REQUEST_INVALID, '`rollout.stickyKey` applies to canary rollouts only');
  return { mode: 'shadow', percent: rollout.percent ?? 100, stickyKey: null, captureContexts: rollout.captureContexts ?? false };
}

/** A check of the caller's role that depends on the request's content (the route's own minimum is checked before). */
function requireRoleFor(ctx: AppContext, role: Role, what: string): void {
  const held = ctx.state.principal?.role ?? null;
  if (!roleSatisfies(held, role)) {
    throw new AuthorizationError(AuthErrorCode.ROLE_INSUFFICIENT, `${what} requires role \`${role}\`; the caller has ${held === null ? 'no known role' : `role \`${held}\``}`);
  }
}

/** The body checked against `schema`; a 400 naming the first problem otherwise. */
function parseBody<T>(schema: z.ZodType<T>, body: unknown, fieldList: string, fieldRules = FIELD_RULES): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const message = describeSchemaProblem(parsed.error, body, { where: 'the request body', fieldList, fieldRules });
  throw new ApiError(400, PolicyErrorCode.REQUEST_INVALID, message);
}

function pathParam(ctx: AppContext, param: string): string {
  const value = pathValue(ctx, param);
  if (value.length === 0 || value.length > 512 || hasLoneSurrogate(value)) {
    throw new ApiError(400, ApiErrorCode.REQUEST_PATH_INVALID, `path parameter \`${param}\` must be 1-512 characters`);
  }
  return value;
}

function moduleParam(ctx: AppContext): string {
  const value = pathParam(ctx, 'policyModule');
  // pathParam has refused an empty or ill-formed value: what is left to fail is the length.
  if (!isName(value)) {
    throw new ApiError(400, ApiErrorCode.REQUEST_PATH_INVALID, `a policy module name has at most ${MAX_NAME_LENGTH} characters`);
  }
  return value;
}

function versionParam(ctx: AppContext): number {
  const text = pathParam(ctx, 'version');
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new ApiError(400, ApiErrorCode.REQUEST_PATH_INVALID, `path parameter \`version\` must be a whole number of at least 0 (got \`${text}\`)`);
  }
  return value;
}

/** The locale to print a source in; undefined keeps the stored one. */
function localeQuery(ctx: AppContext): Locale | undefined {
  const value = queryValue(ctx, 'locale');
  if (value === undefined) return undefined;
  const locale = value.length <= MAX_LOCALE_LENGTH ? resolveLocale(value) : null;
  if (locale !== null) return locale;
  const shown = value.length <= MAX_LOCALE_LENGTH ? `\`${value}\`` : `${value.length} characters`;
  throw new ApiError(400, ApiErrorCode.REQUEST_QUERY_INVALID, `query parameter \`locale\` must be one of ${SUPPORTED_LOCALES.join(', ')} (got ${shown})`);
}

function statusParam(ctx: AppContext): PolicyStatus | undefined {
  const value = queryValue(ctx, 'status');
  if (value === undefined) return undefined;
  if ((POLICY_STATUSES as readonly string[]).includes(value)) return value as PolicyStatus;
  throw new ApiError(400, ApiErrorCode.REQUEST_QUERY_INVALID, `query parameter \`status\` must be one of ${POLICY_STATUSES.join(', ')} (got \`${value}\`)`);
}

function moduleQuery(ctx: AppContext): string | undefined {
  const value = queryValue(ctx, 'policyModule');
  if (value === undefined) return undefined;
  if (!isName(value)) {
    throw new ApiError(400, ApiErrorCode.REQUEST_QUERY_INVALID, `query parameter \`policyModule\` must be 1-${MAX_NAME_LENGTH} characters`);
  }
  return value;
}


/** `page` (from 0) and `size` of a list: the bounds of the registry's lists (policy-bounds.ts). */
function pageParams(ctx: AppContext): { page: number; size: number } {
  return {
    page: integerParam(ctx, 'page', { min: 0, max: POLICY_PAGE_MAX_PAGE, default: 0 }),
    size: integerParam(ctx, 'size', { min: 1, max: POLICY_PAGE_MAX_SIZE, default: POLICY_PAGE_DEFAULT_SIZE }),
  };
}


/** The REST shape of a policy: the owner is implied by the tenant header; the source is the version's. */
function policyView(record: PolicyRecord) {
  const { id, policyModule, policyFunction, version, versionId, status, builtin, locale, createdAt, updatedAt } = record;
  return { id, policyModule, policyFunction, version, versionId, status, builtin, locale, createdAt, updatedAt };
}

/** One policy read by its id carries its version's source. */
function policyDetailView(record: PolicyDetail) {
  return { ...policyView(record), source: record.source };
}


/** `page` and `size` of the registry's lists. */
const pageQuery = z.object({
  page: z.number().int().min(0).max(POLICY_PAGE_MAX_PAGE).optional().describe('zero-based (default 0)'),
  size: z.number().int().min(1).max(POLICY_PAGE_MAX_SIZE).optional().describe(`items per page (default ${POLICY_PAGE_DEFAULT_SIZE})`),
});
const moduleName = { policyModule: 'module name' };
const moduleVersion = { policyModule: 'module name', version: 'version number (0: the built-in module)' };

/**
 * The policy registry: deploy, list, read, version history, rollback and evaluation of deployed
 * policies. Authentication is that of the evaluation endpoints (HMAC signature, or a bearer token
 * instead), with the minimum role per route: VIEWER reads, MEMBER evaluates and starts shadow
 * rollouts, ADMIN deploys versions that answer (active, canary), promotes, aborts and rolls back. Then the tenant's rate limit; then the request itself (400).
 */
export const POLICY_ROUTES = declareRoutes<PolicyRouteOptions>([
  {
    method: 'post',
    path: POLICIES_ROUTE,
    auth: 'signed-or-bearer',
    role: 'MEMBER',
    body: deploySchema,
    cost: { points: (ctx) => deployCost(ctx.request.body), unit: 'one, and one per test case' },
    doc: {
      tag: 'registry',
      summary: 'Deploy a module version (active, or rolled out in the shadow or as a canary)',
      description:
        'MEMBER may start a shadow rollout (it changes no answer); an active deploy or a canary needs ADMIN. While a rollout of the module runs, other deploys and rollbacks of it are refused (409) until it is promoted or aborted.',
      success: {
        status: 201,
        schema: answers.deployed,
        description: 'the new version, its policies (without the source, which is the version\'s), warnings, and the rollout it started (null for an active deploy)',
      },
      errors: {
        400: `the source does not compile (ERR_POLICY_COMPILE, with diagnostics), the module defines more than ${MAX_RULES_PER_MODULE} rules (ERR_POLICY_TOO_MANY_RULES), or a bad body`,
        403: 'an active deploy or a canary by a caller below ADMIN (ERR_AUTH_ROLE_INSUFFICIENT)',
        409: `the tenant has stored ${MAX_VERSIONS_PER_TENANT} versions, the most it may (ERR_POLICY_VERSION_QUOTA_EXCEEDED); a rollout of the module runs (ERR_POLICY_ROLLOUT_IN_PROGRESS); a rollout of a module without an active version (ERR_POLICY_ROLLOUT_NO_STABLE_VERSION)`,
        422: 'a test case did not pass (ERR_POLICY_TESTS_FAILED): `failures` lists each, with `name`, `rule`, `expected`, `actual` and `reason`; nothing was stored',
        503: EVALUATION_UNAVAILABLE,
      },
    },
    handle: async (ctx, { catalog }) => {
      const { tenantId, actorId } = callerOf(ctx);
      const body = parseBody(deploySchema, ctx.request.body, '`source`, `locale` (optional, default `en-US`), `tests` (optional) and `rollout` (optional)');
      const rollout = rolloutPlanOf(body.rollout);
      // A shadow changes no answer; a version that answers (active, canary) is an ADMIN's decision,
      // and so is keeping other callers' contexts.
      if (rollout?.mode !== 'shadow') requireRoleFor(ctx, 'ADMIN', rollout === undefined ? 'an active deploy' : 'a canary rollout');
      else if (rollout.captureContexts) requireRoleFor(ctx, 'ADMIN', 'a shadow that captures contexts');
      try {
        const deployed = await unlessUnavailable(() =>
          catalog.deploy(tenantId, { source: body.source, locale: body.locale ?? DEFAULT_EVALUATION_LOCALE, tests: body.tests, rollout }, actorId),
        );
        ctx.status = 201;
        ctx.body = {
          ...deployed.module,
          policies: deployed.policies.map(policyView),
          warnings: deployed.warnings.map(publicDiagnostic),
          rollout: deployed.rollout,
        };
      } catch (error) {
        if (error instanceof PolicyTestsFailedError) {
          ctx.status = 422;
          ctx.body = { ...errorEnvelope(error.code, error.message), failures: error.failures };
          return;
        }
        if (!(error instanceof PolicyCompileError)) throw error;
        // The envelope plus what the compiler found, as evaluate-source reports it.
        ctx.status = 400;
        ctx.body = { ...errorEnvelope(error.code, error.message), diagnostics: error.diagnostics.map(publicDiagnostic) };
      }
    },
  },
  {
    method: 'post',
    path: CHECK_POLICY_ROUTE,
    auth: 'signed-or-bearer',
    role: 'MEMBER',
    body: checkSchema,
    cost: { points: (ctx) => deployCost(ctx.request.body), unit: 'one, and one per test case' },
    doc: {
      tag: 'registry',
      summary: 'Check a module source as a deploy would, storing nothing',
      description:
        `The source is compiled in the engine within a deploy's bounds (body size, compile time); the \`tests\` run as a deploy runs them. The answer is \`policy check --json\`'s report: a source with errors is a 200 with \`ok\` false and its \`diagnostics\` (a source over ${MAX_SOURCE_BYTES / 1024} KiB reports PL4001, a compile past the time limit PL4004, as a deploy does). Spans count \`line\` and \`column\` from 1, as \`policy check\` prints them (\`file:line:column\`; a column counts UTF-16 code units from the start of the line, after a byte-order mark), \`end\` just past the last character; \`offset\` is the UTF-16 index into \`source\`. \`tests\` and \`formatted\` are present only when asked for and the module compiled; \`ok\` is false when a case failed. Nothing is stored, audited or rolled out: the module need not be new, and registry bounds (rules per module, name lengths, the version quota) are the deploy's to apply.`,
      success: { status: 200, schema: answers.moduleCheck, description: 'the check report' },
      errors: { 400: 'a bad body (ERR_POLICY_REQUEST_INVALID): `source` not a non-empty string, a `locale` or `showIn` other than ' + SUPPORTED_LOCALES.join(', ') + ', malformed `tests`', 503: EVALUATION_UNAVAILABLE },
    },
    handle: async (ctx, { catalog }) => {
      const { tenantId } = callerOf(ctx);
      const body = parseBody(checkSchema, ctx.request.body, '`source`, `locale` (optional), `tests` (optional) and `showIn` (optional)', CHECK_FIELD_RULES);
      ctx.body = await unlessUnavailable(() => catalog.check(tenantId, body));
    },
  },
  {
    method: 'get',
    path: POLICIES_ROUTE,
    auth: 'signed-or-bearer',
    role: 'VIEWER',
    query: pageQuery.extend({ policyModule: z.string().optional(), status: z.enum(POLICY_STATUSES).optional() }),
    doc: {
      tag: 'registry',
      summary: 'The built-in policies and the tenant\'s, paged',
      description: `One policy per rule and version, without the source (the version's: \`GET /api/v1/policies/{id}\` or \`…/versions/{version}/source\`). The built-in ones (version 0) come first, by module; then the tenant's own by module, version and rule.`,
      success: { status: 200, schema: answers.policyPage, description: 'one page' },
      errors: { 400: 'bad query (ERR_REQUEST_QUERY_INVALID)' },
    },
    handle: async (ctx, { catalog }) => {
      const { tenantId } = callerOf(ctx);
      const policyModule = moduleQuery(ctx);
      const status = statusParam(ctx);
      const paging = pageParams(ctx);
      const { items, total } = await catalog.listPolicies(tenantId, {
        ...(policyModule !== undefined ? { policyModule } : {}),
        ...(status !== undefined ? { status } : {}),
        ...paging,
      });
      ctx.body = pageView(items.map(policyView), total, paging);
    },
  },
  {
    method: 'post',
    path: EVALUATE_STORED_POLICY_ROUTE,
    auth: 'signed-or-bearer',
    role: 'MEMBER',
    query: traceQuery,
    body: storedEvaluationBodySchema,
    doc: {
      tag: 'registry',
      summary: 'Evaluate a deployed policy by name',
      success: {
        status: 200,
        schema: answers.storedEvaluationAnswer,
        description: 'the result and the version that answered; the receipt of its audit record in the headers',
        headers: RECEIPT_HEADERS,
      },
      errors: { 400: 'bad body', 404: 'no such module, version or rule for the tenant', 503: EVALUATION_UNAVAILABLE },
    },
    handle: async (ctx, options) => {
      const trace = traceParam(ctx);
      const request = parseStoredEvaluationBody(ctx.request.body, options.limits);
      const gone = requesterGone(ctx);
      const [answer] = await unlessUnavailable(() => options.service.evaluate(callerOf(ctx), [{ kind: 'stored', request }], { trace, gone }));
      const { result, policy, notFound, receipt } = answer!;
      if (notFound === true && !result.ok) throw new ApiError(404, result.code, result.error);
      setReceiptHeaders(ctx, receipt);
      if (policy === undefined) {
        ctx.body = toResponseItem(result, trace);
        return;
      }
      ctx.body = {
        ...toResponseItem(result, trace),
        policyModule: policy.policyModule,
        policyFunction: policy.functionName,
        version: policy.version,
        versionId: policy.versionId,
      };
    },
  },
  {
    method: 'get',
    path: `${POLICIES_ROUTE}/{policyModule}/versions`,
    auth: 'signed-or-bearer',
    role: 'VIEWER',
    pathParams: moduleName,
    query: pageQuery,
    doc: {
      tag: 'registry',
      summary: 'Versions of a module, ascending, paged',
      description:
        'The built-in version 0 first when the service has the module, then the tenant\'s versions 1, 2, …; each with its number of rules, without their signatures (`…/versions/{version}`) or its source (`…/versions/{version}/source`).',
      success: { status: 200, schema: answers.moduleVersionPage, description: 'one page' },
      errors: { 400: 'bad path or query (ERR_REQUEST_PATH_INVALID, ERR_REQUEST_QUERY_INVALID)', 404: 'no such module for the tenant' },
    },
    handle: async (ctx, { catalog }) => {
      const { tenantId } = callerOf(ctx);
      const policyModule = moduleParam(ctx);
      const paging = pageParams(ctx);
      const { items, total } = await catalog.listVersions(tenantId, policyModule, paging);
      ctx.body = pageView(items, total, paging);
    },
  },
  {
    method: 'get',
    path: `${POLICIES_ROUTE}/{policyModule}/versions/{version}`,
    auth: 'signed-or-bearer',
    role: 'VIEWER',
    pathParams: moduleVersion,
    doc: {
      tag: 'registry',
      summary: 'One version of a module',
      success: { status: 200, schema: answers.moduleVersion, description: 'the version with its rules\' signatures, without its source' },
      errors: { 400: 'bad path (ERR_REQUEST_PATH_INVALID)', 404: 'no such module or version for the tenant' },
    },
    handle: async (ctx, { catalog }) => {
      const { tenantId } = callerOf(ctx);
      const policyModule = moduleParam(ctx);
      ctx.body = await catalog.getVersion(tenantId, policyModule, versionParam(ctx));
    },
  },
  {
    method: 'get',
    path: `${POLICIES_ROUTE}/{policyModule}/versions/{version}/source`,
    auth: 'signed-or-bearer',
    role: 'VIEWER',
    pathParams: moduleVersion,
    query: z.object({ locale: z.enum(SUPPORTED_LOCALES).optional().describe('print the source in this locale; default as stored') }),
    doc: {
      tag: 'registry',
      summary: 'A version\'s source, printed in another locale',
      description: `The stored source of the version (0: the built-in module), or with \`locale\` the module printed by the formatter in that locale (as \`policy fmt --locale\`: keywords, punctuation and layout of the locale; names and comments unchanged). A locale equal to the stored one answers the source as stored.`,
      success: { status: 200, schema: answers.versionSource, description: 'the source and its locale' },
      errors: { 400: `a bad path, or a locale other than ${SUPPORTED_LOCALES.join(', ')} (ERR_REQUEST_QUERY_INVALID)`, 404: 'no such module or version for the tenant' },
    },
    handle: async (ctx, { catalog }) => {
      const { tenantId } = callerOf(ctx);
      const policyModule = moduleParam(ctx);
      const version = versionParam(ctx);
      ctx.body = await catalog.getVersionSource(tenantId, policyModule, version, localeQuery(ctx));
    },
  },
  {
    method: 'post',
    path: `${POLICIES_ROUTE}/{policyModule}/rollback`,
    auth: 'signed-or-bearer',
    role: 'ADMIN',
    pathParams: moduleName,
    body: rollbackSchema,
    doc: {
      tag: 'registry',
      summary: 'Activate another version',
      success: { status: 200, schema: answers.rolledBack, description: 'the activation' },
      errors: { 400: 'bad body', 404: 'no such module or version', 409: 'that version is already active, or a rollout of the module runs (ERR_POLICY_ROLLOUT_IN_PROGRESS)' },
    },
    handle: async (ctx, { catalog }) => {
      const { tenantId, actorId } = callerOf(ctx);
      const policyModule = moduleParam(ctx);
      const { version } = parseBody(rollbackSchema, ctx.request.body, '`version`');
      ctx.body = await catalog.rollback(tenantId, policyModule, version, actorId);
    },
  },
  {
    method: 'get',
    path: `${POLICIES_ROUTE}/{policyModule}/rollout`,
    auth: 'signed-or-bearer',
    role: 'VIEWER',
    pathParams: moduleName,
    doc: {
      tag: 'registry',
      summary: 'The module\'s newest rollout',
      description:
        'Running or ended: its terms, status (RUNNING, PROMOTED, ABORTED) and why it ended; for a shadow, how the copies compared and the newest disagreements (their results and context hash for MEMBER and above, a captured context for ADMIN; when and in which rule for a VIEWER); the evaluations, failures and mean time of the stable and the rolled-out version since the rollout started (from the rollups); for a canary, the answers its route chose by side (what the guard compares: no pinned evaluations, no failures of the caller\'s context).',
      success: { status: 200, schema: answers.rollout, description: 'the rollout' },
      errors: { 400: 'bad path (ERR_REQUEST_PATH_INVALID)', 404: 'no such module, or it never had a rollout (ERR_POLICY_ROLLOUT_NOT_FOUND)' },
    },
    handle: async (ctx, { rollouts }) => {
      const { tenantId } = callerOf(ctx);
      const view = await rollouts.view(tenantId, moduleParam(ctx));
      // A disagreement is the callers' data: its results and context hash for those who may
      // evaluate (MEMBER), a captured context for ADMIN; a VIEWER sees when and in which rule.
      const role = ctx.state.principal?.role ?? null;
      const shown = (sample: ShadowSample): Partial<ShadowSample> => {
        if (roleSatisfies(role, 'ADMIN')) return sample;
        const { context: _context, ...withoutContext } = sample;
        return roleSatisfies(role, 'MEMBER') ? withoutContext : { at: sample.at, policyFunction: sample.policyFunction };
      };
      ctx.body = view.shadow === null ? view : { ...view, shadow: { ...view.shadow, disagreements: view.shadow.disagreements.map(shown) } };
    },
  },
  ...(['promote', 'abort'] as const).map((step) => ({
    method: 'post' as const,
    path: `${POLICIES_ROUTE}/{policyModule}/rollout/${step}`,
    auth: 'signed-or-bearer' as const,
    role: 'ADMIN' as const,
    pathParams: moduleName,
    body: endRolloutSchema,
    doc: {
      tag: 'registry',
      summary: step === 'promote' ? 'Promote the running rollout: its version becomes the active one' : 'Abort the running rollout: the stable version answers everything again',
      description: 'Seen by every API process at once (through the activation notices). Recorded in the audit chain with the optional `reason`.',
      success: { status: 200 as const, schema: answers.rollout, description: 'the ended rollout' },
      errors: { 400: 'bad path or body', 404: 'no such module', 409: 'no rollout of the module runs (ERR_POLICY_ROLLOUT_NOT_RUNNING)' },
    },
    handle: async (ctx: AppContext, { rollouts }: PolicyRouteOptions) => {
      const { tenantId, actorId } = callerOf(ctx);
      const policyModule = moduleParam(ctx);
      const { reason } = parseBody(endRolloutSchema, ctx.request.body ?? {}, '`reason` (optional)');
      if (reason !== undefined && hasLoneSurrogate(reason)) throw new ApiError(400, PolicyErrorCode.REQUEST_INVALID, '`reason` must be well-formed text (it has a lone surrogate)');
      ctx.body = await rollouts[step](tenantId, policyModule, actorId, { reason });
    },
  })),
  {
    method: 'get',
    path: `${POLICIES_ROUTE}/{id}`,
    auth: 'signed-or-bearer',
    role: 'VIEWER',
    pathParams: { id: 'policy id' },
    doc: {
      tag: 'registry',
      summary: 'One policy (module, rule and version)',
      success: { status: 200, schema: answers.policyDetail, description: 'the policy, with its version\'s source' },
      errors: { 404: 'no such policy for the tenant' },
    },
    handle: async (ctx, { catalog }) => {
      const { tenantId } = callerOf(ctx);
      const id = pathParam(ctx, 'id');
      const record = await catalog.getPolicy(tenantId, id);
      if (record === null) throw new ApiError(404, PolicyErrorCode.MODULE_NOT_FOUND, `no policy \`${id}\``);
      ctx.body = policyDetailView(record);
    },
  },
]);

export function createPolicyRoutes(options: PolicyRouteOptions): RouteGroup {
  return bindRoutes(POLICY_ROUTES, options, options);
}
