import { z } from 'zod';
import {
  DEFAULT_EVALUATION_LOCALE,
  MAX_LOCALE_LENGTH,
  parseStoredEvaluationBody,
  publicDiagnostic,
  toResponseItem,
  type EvaluationService,
  type RequestLimits,
} from '../../evaluation/index.js';
import { describeSchemaProblem } from '../../errors/index.js';
import { hasLoneSurrogate, MAX_NAME_LENGTH } from '../../kernel/index.js';
import { resolveLocale, SUPPORTED_LOCALES, type Locale } from '../../language/index.js';
import {
  PolicyCompileError,
  PolicyErrorCode,
  POLICY_PAGE_DEFAULT_SIZE,
  POLICY_PAGE_MAX_PAGE,
  POLICY_PAGE_MAX_SIZE,
  POLICY_STATUSES,
  type PolicyCatalog,
  type PolicyDetail,
  type PolicyRecord,
  type PolicyStatus,
} from '../../policies/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext, RouteModule } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { errorEnvelope } from '../error-envelope.js';
import { integerParam, queryValue } from '../query-params.js';
import { callerOf, requesterGone, traceParam, unlessUnavailable } from './evaluation-route-kit.js';
import { createSignedOrBearerGuard, type SignedOrBearerOptions } from './signed-or-bearer-guard.js';

export const POLICIES_ROUTE = '/api/v1/policies';
export const EVALUATE_STORED_POLICY_ROUTE = '/api/v1/policies/evaluate';

export interface PolicyRouteOptions extends SignedOrBearerOptions {
  catalog: PolicyCatalog;
  /** Evaluations of deployed policies go the one evaluation path. */
  service: Pick<EvaluationService, 'evaluate'>;
  limits?: RequestLimits;
}

export const deploySchema = z.strictObject({
  source: z.string().min(1),
  locale: z.string().min(1).max(MAX_LOCALE_LENGTH).optional(),
});
export const rollbackSchema = z.strictObject({ version: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

const FIELD_RULES: Record<string, string> = {
  source: 'a non-empty string (the policy module source text)',
  locale: `a language tag string of 1 to ${MAX_LOCALE_LENGTH} characters, e.g. \`en-US\``,
  version: 'a whole number of at least 0 (0 is the built-in module)',
};

/** The body checked against `schema`; a 400 naming the first problem otherwise. */
function parseBody<T>(schema: z.ZodType<T>, body: unknown, fieldList: string): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const message = describeSchemaProblem(parsed.error, body, { where: 'the request body', fieldList, fieldRules: FIELD_RULES });
  throw new ApiError(400, PolicyErrorCode.REQUEST_INVALID, message);
}

function pathParam(ctx: AppContext, param: string): string {
  const value = (ctx as AppContext & { params: Record<string, string> }).params[param] ?? '';
  if (value.length === 0 || value.length > 512 || hasLoneSurrogate(value)) {
    throw new ApiError(400, ApiErrorCode.REQUEST_PATH_INVALID, `path parameter \`${param}\` must be 1-512 characters`);
  }
  return value;
}

function moduleParam(ctx: AppContext): string {
  const value = pathParam(ctx, 'policyModule');
  if (value.length > MAX_NAME_LENGTH) {
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
  if (value.length === 0 || value.length > MAX_NAME_LENGTH || hasLoneSurrogate(value)) {
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

/** The interface's page envelope. */
function pageView<T>(items: T[], total: number, { page, size }: { page: number; size: number }) {
  return { content: items, totalElements: total, totalPages: Math.ceil(total / size), page, size };
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


/**
 * The policy registry: deploy, list, read, version history, rollback and evaluation of deployed
 * policies. Authentication is that of the evaluation endpoints (HMAC signature, or a bearer token
 * instead), with the minimum role per route: VIEWER reads, MEMBER deploys and evaluates, ADMIN rolls
 * back. Then the tenant's rate limit; then the request itself (400).
 */
export function createPolicyRoutes(options: PolicyRouteOptions): RouteModule {
  return (router, deps, kit) => {
    const guard = createSignedOrBearerGuard(options, deps, kit);
    const { catalog } = options;

    router.post(POLICIES_ROUTE, ...guard('MEMBER'), async (ctx) => {
      const { tenantId, actorId } = callerOf(ctx);
      const body = parseBody(deploySchema, ctx.request.body, '`source` and `locale` (optional, default `en-US`)');
      try {
        const deployed = await unlessUnavailable(() =>
          catalog.deploy(tenantId, { source: body.source, locale: body.locale ?? DEFAULT_EVALUATION_LOCALE }, actorId),
        );
        ctx.status = 201;
        ctx.body = {
          ...deployed.module,
          policies: deployed.policies.map(policyView),
          warnings: deployed.warnings.map(publicDiagnostic),
        };
      } catch (error) {
        if (!(error instanceof PolicyCompileError)) throw error;
        // The envelope plus what the compiler found, as evaluate-source reports it.
        ctx.status = 400;
        ctx.body = { ...errorEnvelope(error.code, error.message), diagnostics: error.diagnostics.map(publicDiagnostic) };
      }
    });

    router.get(POLICIES_ROUTE, ...guard('VIEWER'), async (ctx) => {
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
    });

    router.post(EVALUATE_STORED_POLICY_ROUTE, ...guard('MEMBER'), async (ctx) => {
      const trace = traceParam(ctx);
      const request = parseStoredEvaluationBody(ctx.request.body, options.limits);
      const gone = requesterGone(ctx);
      const [answer] = await unlessUnavailable(() => options.service.evaluate(callerOf(ctx), [{ kind: 'stored', request }], { trace, gone }));
      const { result, policy, notFound } = answer!;
      if (notFound === true && !result.ok) throw new ApiError(404, result.code, result.error);
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
    });

    router.get(`${POLICIES_ROUTE}/:policyModule/versions`, ...guard('VIEWER'), async (ctx) => {
      const { tenantId } = callerOf(ctx);
      const policyModule = moduleParam(ctx);
      const paging = pageParams(ctx);
      const { items, total } = await catalog.listVersions(tenantId, policyModule, paging);
      ctx.body = pageView(items, total, paging);
    });

    router.get(`${POLICIES_ROUTE}/:policyModule/versions/:version`, ...guard('VIEWER'), async (ctx) => {
      const { tenantId } = callerOf(ctx);
      const policyModule = moduleParam(ctx);
      ctx.body = await catalog.getVersion(tenantId, policyModule, versionParam(ctx));
    });

    router.get(`${POLICIES_ROUTE}/:policyModule/versions/:version/source`, ...guard('VIEWER'), async (ctx) => {
      const { tenantId } = callerOf(ctx);
      const policyModule = moduleParam(ctx);
      const version = versionParam(ctx);
      ctx.body = await catalog.getVersionSource(tenantId, policyModule, version, localeQuery(ctx));
    });

    router.post(`${POLICIES_ROUTE}/:policyModule/rollback`, ...guard('ADMIN'), async (ctx) => {
      const { tenantId, actorId } = callerOf(ctx);
      const policyModule = moduleParam(ctx);
      const { version } = parseBody(rollbackSchema, ctx.request.body, '`version`');
      ctx.body = await catalog.rollback(tenantId, policyModule, version, actorId);
    });

    router.get(`${POLICIES_ROUTE}/:id`, ...guard('VIEWER'), async (ctx) => {
      const { tenantId } = callerOf(ctx);
      const id = pathParam(ctx, 'id');
      const record = await catalog.getPolicy(tenantId, id);
      if (record === null) throw new ApiError(404, PolicyErrorCode.MODULE_NOT_FOUND, `no policy \`${id}\``);
      ctx.body = policyDetailView(record);
    });
  };
}
