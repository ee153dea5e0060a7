import { z } from 'zod';
import {
  ANOMALY_TYPES,
  AnomalyError,
  AnomalyErrorCode,
  TRIAGE_TARGETS,
  type AnomalyDetail,
  type AnomalySettings,
  type AnomalyTriage,
  type AnomalyType,
  type TriageTarget,
} from '../../anomalies/index.js';
import { listNames } from '../../errors/index.js';
import { hasLoneSurrogate } from '../../kernel/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext, KeyedRequest, RouteModule } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { integerParam, queryValue } from '../query-params.js';

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

/** `{status, note?}`; VERIFYING and unknown values are 400 (only a verification job sets VERIFYING). */
function parseStatusBody(body: unknown): { status: TriageTarget; note: string | null } {
  const targets = TRIAGE_TARGETS.join(', ');
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidBody(`the body must be a JSON object {"status": one of ${targets}, "note"?: text}`);
  }
  const parsed = statusBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.code === 'unrecognized_keys') throw invalidBody(`unknown field ${listNames(issue.keys)}: the body takes \`status\` and \`note\``);
    const field = String(issue.path[0] ?? 'body');
    if (field === 'status') throw invalidBody(`\`status\` is required and must be one of ${targets}`);
    throw invalidBody(`\`note\` must be text of at most ${ANOMALY_NOTE_MAX_LENGTH} characters, without unpaired surrogates`);
  }
  const { status, note } = parsed.data;
  if (status === 'VERIFYING') {
    throw invalidBody(`\`status\` VERIFYING cannot be requested: POST ${ANOMALIES_ROUTE}/{id}/actions/verify starts a verification`);
  }
  if (!(TRIAGE_TARGETS as readonly string[]).includes(status)) {
    throw invalidBody(`\`status\` must be one of ${targets} (got \`${status.slice(0, 64)}\`)`);
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
  return (ctx as AppContext & { params: Record<string, string> }).params.id ?? '';
}

function actorOf(ctx: AppContext): string {
  const principal = ctx.state.principal;
  if (principal === undefined) throw new Error('anomaly route reached without a principal');
  return principal.subject;
}

function tenantOf(ctx: AppContext): string {
  const tenantId = ctx.state.tenantId;
  if (tenantId === undefined) throw new Error('anomaly route reached without a tenant');
  return tenantId;
}

/** The keyed request, stored with the change it makes (none without an Idempotency-Key). */
function keyedRequestOf(ctx: AppContext): { request?: KeyedRequest } {
  const request = ctx.state.idempotentRequest;
  return request === undefined ? {} : { request };
}

/** Anomaly triage (role ADMIN, bearer token, tenant header) and the tenant's detection settings. */
export function createAnomalyRoutes(options: AnomalyRouteOptions): RouteModule {
  const { triage, settings } = options;
  return (router, _deps, kit) => {
    const guard = kit.restGuard('ADMIN');

    router.get(ANOMALIES_ROUTE, guard, async (ctx) => {
      const page = integerParam(ctx, 'page', { min: 0, max: MAX_PAGE, default: 0 });
      const size = integerParam(ctx, 'size', { min: 1, max: ANOMALY_PAGE_MAX_SIZE, default: ANOMALY_PAGE_DEFAULT_SIZE });
      const days = integerParam(ctx, 'days', { min: 1, max: ANOMALY_LIST_MAX_DAYS, default: ANOMALY_LIST_DEFAULT_DAYS });
      const type = typeParam(ctx);
      ctx.body = await triage.list(tenantOf(ctx), { page, size, days, ...(type !== undefined ? { type } : {}) });
    });

    router.get(`${ANOMALIES_ROUTE}/:id`, guard, async (ctx) => {
      ctx.body = await triage.get(tenantOf(ctx), idParam(ctx));
    });

    // Each change is stored before its audit record is written: once stored, a repeat of the
    // request's Idempotency-Key replays the answer below, even should this attempt still fail; and
    // the change keeps the request's reference, so a repeat after the key was freed finds it.
    router.post(`${ANOMALIES_ROUTE}/:id/actions/verify`, guard, kit.idempotent, async (ctx) => {
      const accepted = { status: 202, body: null };
      const onStored = () => {
        ctx.state.storedEffectAnswer = accepted;
      };
      await triage.startVerification(tenantOf(ctx), idParam(ctx), actorOf(ctx), { onStored, ...keyedRequestOf(ctx) });
      // Body first: Koa turns a null body into 204 unless the status is set after it.
      ctx.body = accepted.body;
      ctx.status = accepted.status;
    });

    router.patch(`${ANOMALIES_ROUTE}/:id/status`, guard, kit.idempotent, async (ctx) => {
      const { status, note } = parseStatusBody((ctx.request as { body?: unknown }).body);
      const onStored = (changed: AnomalyDetail) => {
        ctx.state.storedEffectAnswer = { status: 200, body: changed };
      };
      ctx.body = await triage.changeStatus(tenantOf(ctx), idParam(ctx), status, note, actorOf(ctx), { onStored, ...keyedRequestOf(ctx) });
    });

    router.get(ANOMALY_SETTINGS_ROUTE, guard, async (ctx) => {
      ctx.body = await settings.view(tenantOf(ctx));
    });

    router.put(ANOMALY_SETTINGS_ROUTE, guard, async (ctx) => {
      ctx.body = await settings.replace(tenantOf(ctx), (ctx.request as { body?: unknown }).body, actorOf(ctx));
    });
  };
}
