import { z } from 'zod';
import {
  ANOMALY_TYPES,
  AnomalyError,
  AnomalyErrorCode,
  anomalySettingsBodySchema,
  TRIAGE_TARGETS,
  type AnomalyDetail,
  type AnomalySettings,
  type AnomalyTriage,
  type AnomalyType,
  type TriageTarget,
} from '../../anomalies/index.js';
import { describeSchemaProblem, type BodyShape } from '../../errors/index.js';
import type { KeyedRequest } from '../../idempotency/index.js';
import { hasLoneSurrogate } from '../../kernel/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import * as answers from '../openapi/response-schemas.js';
import { integerParam, queryValue } from '../query-params.js';
import { pathValue, tenantOf } from '../route-context.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';

export const ANOMALIES_ROUTE = '/api/v1/audit/anomalies';
export const ANOMALY_SETTINGS_ROUTE = '/api/v1/audit/anomaly-settings';

/** Page size bounds of the list (the interface leaves the maximum to the service). */
export const ANOMALY_PAGE_DEFAULT_SIZE = 20;
export const ANOMALY_PAGE_MAX_SIZE = 100;
export const ANOMALY_LIST_DEFAULT_DAYS = 7;
export const ANOMALY_LIST_MAX_DAYS = 3650;
/** Keeps page × size a safe offset. */
const MAX_PAGE = 1_000_000;
export const ANOMALY_NOTE_MAX_LENGTH = 2000;

export interface AnomalyRouteOptions {
  triage: AnomalyTriage;
  settings: AnomalySettings;
}

export const statusBodySchema = z.strictObject({
  status: z.string(),
  // The note goes into the audit record, whose canonical JSON has no form for an unpaired surrogate.
  note: z
    .string()
    .max(ANOMALY_NOTE_MAX_LENGTH)
    .refine((text) => !hasLoneSurrogate(text))
    .nullable()
    .optional(),
});

function invalidBody(message: string): AnomalyError {
  return new AnomalyError(400, AnomalyErrorCode.REQUEST_INVALID, message);
}

/** What the status body takes, for the 400 that names its first problem. */
const STATUS_BODY: BodyShape = {
  where: 'the request body',
  fieldList: '`status` and `note`',
  fieldRules: {
    status: `one of ${TRIAGE_TARGETS.join(', ')}`,
    note: `text of at most ${ANOMALY_NOTE_MAX_LENGTH} characters without unpaired surrogates, or null`,
  },
};

/** `{status, note?}`; VERIFYING and unknown values are 400 (only a verification job sets VERIFYING). */
function parseStatusBody(body: unknown): { status: TriageTarget; note: string | null } {
  const parsed = statusBodySchema.safeParse(body);
  if (!parsed.success) throw invalidBody(describeSchemaProblem(parsed.error, body, STATUS_BODY));
  const { status, note } = parsed.data;
  if (status === 'VERIFYING') {
    throw invalidBody(`\`status\` VERIFYING cannot be requested: POST ${ANOMALIES_ROUTE}/{id}/actions/verify starts a verification`);
  }
  if (!(TRIAGE_TARGETS as readonly string[]).includes(status)) {
    throw invalidBody(`\`status\` must be ${STATUS_BODY.fieldRules.status} (got \`${status.slice(0, 64)}\`)`);
  }
  return { status: status as TriageTarget, note: note ?? null };
}

function typeParam(ctx: AppContext): AnomalyType | undefined {
  const type = queryValue(ctx, 'type');
  if (type === undefined) return undefined;
  if (!(ANOMALY_TYPES as readonly string[]).includes(type)) {
    throw new ApiError(400, ApiErrorCode.REQUEST_QUERY_INVALID, `query parameter \`type\` must be one of ${ANOMALY_TYPES.join(', ')} (got \`${type.slice(0, 64)}\`)`);
  }
  return type as AnomalyType;
}

function idParam(ctx: AppContext): string {
  return pathValue(ctx, 'id');
}

function actorOf(ctx: AppContext): string {
  const principal = ctx.state.principal;
  if (principal === undefined) throw new Error('anomaly route reached without a principal');
  return principal.subject;
}

/** The keyed request, stored with the change it makes (none without an Idempotency-Key). */
function keyedRequestOf(ctx: AppContext): { request?: KeyedRequest } {
  const request = ctx.state.idempotentRequest;
  return request === undefined ? {} : { request };
}

const anomalyId = { id: 'anomaly id' };

/** Anomaly triage (role ADMIN, bearer token, tenant header) and the tenant's detection settings. */
export const ANOMALY_ROUTES = declareRoutes<AnomalyRouteOptions>([
  {
    method: 'get',
    path: ANOMALIES_ROUTE,
    auth: 'bearer',
    role: 'ADMIN',
    query: z.object({
      type: z.enum(ANOMALY_TYPES).optional(),
      days: z.number().int().min(1).max(ANOMALY_LIST_MAX_DAYS).optional(),
      page: z.number().int().min(0).optional(),
      size: z.number().int().min(1).max(ANOMALY_PAGE_MAX_SIZE).optional(),
    }),
    doc: {
      tag: 'anomalies',
      summary: 'Anomalies, newest first, paged',
      success: { status: 200, schema: answers.anomalyPage, description: 'one page' },
      errors: { 400: 'bad query (ERR_REQUEST_QUERY_INVALID)' },
    },
    handle: async (ctx, { triage }) => {
      const page = integerParam(ctx, 'page', { min: 0, max: MAX_PAGE, default: 0 });
      const size = integerParam(ctx, 'size', { min: 1, max: ANOMALY_PAGE_MAX_SIZE, default: ANOMALY_PAGE_DEFAULT_SIZE });
      const days = integerParam(ctx, 'days', { min: 1, max: ANOMALY_LIST_MAX_DAYS, default: ANOMALY_LIST_DEFAULT_DAYS });
      const type = typeParam(ctx);
      ctx.body = await triage.list(tenantOf(ctx), { page, size, days, ...(type !== undefined ? { type } : {}) });
    },
  },
  {
    method: 'get',
    path: `${ANOMALIES_ROUTE}/{id}`,
    auth: 'bearer',
    role: 'ADMIN',
    pathParams: anomalyId,
    doc: {
      tag: 'anomalies',
      summary: 'One anomaly with its metrics and recommended actions',
      success: { status: 200, schema: answers.anomalyDetail, description: 'the anomaly' },
      errors: { 404: 'no such anomaly for the tenant' },
    },
    handle: async (ctx, { triage }) => {
      ctx.body = await triage.get(tenantOf(ctx), idParam(ctx));
    },
  },
  {
    method: 'post',
    path: `${ANOMALIES_ROUTE}/{id}/actions/verify`,
    auth: 'bearer',
    role: 'ADMIN',
    pathParams: anomalyId,
    idempotent: true,
    doc: {
      tag: 'anomalies',
      summary: 'Start a verification job',
      description: 'Poll the detail: VERIFYING, then RESOLVED or OPEN.',
      success: { status: 202, description: 'the job is queued' },
      errors: {
        404: 'no such anomaly',
        409: 'not in a status that can be verified, or the same Idempotency-Key is still running',
        422: 'Idempotency-Key reused for another request',
        503: 'the verification queue is unavailable',
      },
    },
    // Each change is stored before its audit record is written: once stored, a repeat of the
    // request's Idempotency-Key replays the answer below, even should this attempt still fail; and
    // the change keeps the request's reference, so a repeat after the key was freed finds it.
    handle: async (ctx, { triage }) => {
      const accepted = { status: 202, body: null };
      const onStored = () => {
        ctx.state.storedEffectAnswer = accepted;
      };
      await triage.startVerification(tenantOf(ctx), idParam(ctx), actorOf(ctx), { onStored, ...keyedRequestOf(ctx) });
      // Body first: Koa turns a null body into 204 unless the status is set after it.
      ctx.body = accepted.body;
      ctx.status = accepted.status;
    },
  },
  {
    method: 'patch',
    path: `${ANOMALIES_ROUTE}/{id}/status`,
    auth: 'bearer',
    role: 'ADMIN',
    pathParams: anomalyId,
    body: statusBodySchema,
    idempotent: true,
    doc: {
      tag: 'anomalies',
      summary: 'Resolve, dismiss or reopen',
      success: { status: 200, schema: answers.anomalyDetail, description: 'the anomaly after the change' },
      errors: {
        400: 'bad body or a status that cannot be set (ERR_ANOMALY_REQUEST_INVALID)',
        404: 'no such anomaly',
        409: 'the transition is not allowed, or the same Idempotency-Key is still running',
        422: 'Idempotency-Key reused for another request',
      },
    },
    handle: async (ctx, { triage }) => {
      const { status, note } = parseStatusBody((ctx.request as { body?: unknown }).body);
      const onStored = (changed: AnomalyDetail) => {
        ctx.state.storedEffectAnswer = { status: 200, body: changed };
      };
      ctx.body = await triage.changeStatus(tenantOf(ctx), idParam(ctx), status, note, actorOf(ctx), { onStored, ...keyedRequestOf(ctx) });
    },
  },
  {
    method: 'get',
    path: ANOMALY_SETTINGS_ROUTE,
    auth: 'bearer',
    role: 'ADMIN',
    doc: {
      tag: 'anomalies',
      summary: 'The tenant\'s detection settings',
      success: { status: 200, schema: answers.anomalySettings, description: 'defaults, overrides, effective values and bounds' },
      errors: {},
    },
    handle: async (ctx, { settings }) => {
      ctx.body = await settings.view(tenantOf(ctx));
    },
  },
  {
    method: 'put',
    path: ANOMALY_SETTINGS_ROUTE,
    auth: 'bearer',
    role: 'ADMIN',
    body: anomalySettingsBodySchema,
    doc: {
      tag: 'anomalies',
      summary: 'Replace the tenant\'s overrides',
      success: { status: 200, schema: answers.anomalySettings, description: 'the settings now' },
      errors: { 400: 'unknown setting or a value out of bounds' },
    },
    handle: async (ctx, { settings }) => {
      ctx.body = await settings.replace(tenantOf(ctx), (ctx.request as { body?: unknown }).body, actorOf(ctx));
    },
  },
]);

export function createAnomalyRoutes(options: AnomalyRouteOptions): RouteGroup {
  return bindRoutes(ANOMALY_ROUTES, options);
}
