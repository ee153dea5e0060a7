import {
  AUDIT_LIST_DEFAULT_LIMIT,
  AUDIT_LIST_MAX_LIMIT,
  AUDIT_LIST_RECORDS_PER_POINT,
  AUDIT_LIST_SLICE,
  AUDIT_LIST_TURNS_PER_TENANT,
  auditListCost,
  createTenantTurns,
  readAuditList,
  type AuditQuery,
  type AuditRecord,
} from '../../audit/index.js';
import { MAX_NAME_LENGTH } from '../../kernel/index.js';
import { ApiError } from '../api-error.js';
import { AUDIT_EVENT_TYPES } from '../audit-event-types.js';
import type { AppContext, AppDeps, AppRouter, RouteKit } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { jsonArrayBody } from '../json-array-body.js';
import { booleanParam, integerParam, timeRangeParams } from '../query-params.js';

function eventTypeParam(ctx: AppContext): string {
  const eventType = pathName(ctx, 'eventType');
  if (!AUDIT_EVENT_TYPES.includes(eventType)) {
    throw new ApiError(
      400,
      ApiErrorCode.REQUEST_PATH_INVALID,
      `unknown event type \`${eventType.slice(0, 64)}\`; known event types: ${AUDIT_EVENT_TYPES.join(', ')}`,
    );
  }
  return eventType;
}

/** The public shape of a record: stored fields only, whatever else an adapter carries. */
function view(record: AuditRecord): AuditRecord {
  const { id, seq, eventType, policyModule, policyFunction, actorId, occurredAt, payload, hash, previousHash } = record;
  return { id, seq, eventType, policyModule, policyFunction, actorId, occurredAt, payload, hash, previousHash };
}

const limitParam = (ctx: AppContext) => integerParam(ctx, 'limit', { min: 1, max: AUDIT_LIST_MAX_LIMIT, default: AUDIT_LIST_DEFAULT_LIMIT });

/** `limit` and `before` (a seq: only older records), shared by every list. */
function paging(ctx: AppContext): Pick<AuditQuery, 'limit' | 'before'> {
  const limit = limitParam(ctx);
  const before = integerParam(ctx, 'before', { min: 1, max: Number.MAX_SAFE_INTEGER });
  return before === undefined ? { limit } : { limit, before };
}

/** A list's rate-limit points, by the records it asks for; a malformed `limit` costs one and is refused after. */
function listCost(ctx: AppContext): number {
  try {
    return auditListCost(limitParam(ctx));
  } catch {
    return 1;
  }
}

function pathName(ctx: AppContext, name: string): string {
  const value = (ctx as AppContext & { params: Record<string, string> }).params[name] ?? '';
  if (value.length === 0 || value.length > MAX_NAME_LENGTH) {
    throw new ApiError(400, ApiErrorCode.REQUEST_PATH_INVALID, `path parameter \`${name}\` must be 1-${MAX_NAME_LENGTH} characters`);
  }
  return value;
}

function tenantOf(ctx: AppContext): string {
  const tenantId = ctx.state.tenantId;
  if (tenantId === undefined) throw new Error('audit route reached without a tenant');
  return tenantId;
}

/** The tenant's audit chain, newest first (seq descending, which is append order). */
export function auditRoutes(router: AppRouter, deps: AppDeps, kit: RouteKit): void {
  const guard = kit.restGuard('ADMIN');
  // The REST chain with a list's points: a list costs what it asks for, not one request's point.
  const listGuard = [kit.tenant, kit.bearer, kit.rateLimitBy(listCost, `one per ${AUDIT_LIST_RECORDS_PER_POINT} records asked for`), kit.requireRole('ADMIN')];
  // A list is read and written a slice at a time, and a tenant's lists take turns, a few at once:
  // 40 lists of the largest page sent together hold another tenant's request for a few slices.
  const turns = createTenantTurns(AUDIT_LIST_TURNS_PER_TENANT);
  const list = async (ctx: AppContext, query: AuditQuery) => {
    const release = await turns.take(tenantOf(ctx));
    try {
      const records = await readAuditList(deps.store.audit, tenantOf(ctx), query);
      const body = jsonArrayBody(records.map(view), AUDIT_LIST_SLICE);
      // The turn lasts until the answer is written (or the client is gone).
      body.once('close', release);
      ctx.type = 'json';
      ctx.body = body;
    } catch (error) {
      release();
      throw error;
    }
  };

  router.get('/api/v1/audit', ...listGuard, async (ctx) => {
    await list(ctx, paging(ctx));
  });

  router.get('/api/v1/audit/verify', guard, async (ctx) => {
    ctx.body = await deps.auditVerifier.verify(tenantOf(ctx), { full: booleanParam(ctx, 'full') });
  });

  router.get('/api/v1/audit/type/:eventType', ...listGuard, async (ctx) => {
    await list(ctx, { ...paging(ctx), eventType: eventTypeParam(ctx) });
  });

  router.get('/api/v1/audit/policy/:policyModule/:policyFunction', ...listGuard, async (ctx) => {
    const policyModule = pathName(ctx, 'policyModule');
    const policyFunction = pathName(ctx, 'policyFunction');
    await list(ctx, { ...paging(ctx), policyModule, policyFunction });
  });

  router.get('/api/v1/audit/range', ...listGuard, async (ctx) => {
    const { from, to } = timeRangeParams(ctx, 'startTime', 'endTime');
    await list(ctx, { ...paging(ctx), from, to });
  });
}
