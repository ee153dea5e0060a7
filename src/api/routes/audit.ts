import { z } from 'zod';
import {
  AUDIT_LIST_DEFAULT_LIMIT,
  AUDIT_LIST_MAX_LIMIT,
  AUDIT_LIST_RECORDS_PER_POINT,
  AUDIT_LIST_SLICE,
  AUDIT_LIST_TURNS_PER_TENANT,
  auditListCost,
  createTenantTurns,
  readAuditList,
  type AuditChainRepository,
  type AuditQuery,
  type AuditRecord,
  type ChainVerifier,
} from '../../audit/index.js';
import { hasLoneSurrogate, isName, MAX_NAME_LENGTH } from '../../kernel/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext } from '../app-types.js';
import { AUDIT_EVENT_TYPES } from '../audit-event-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { jsonArrayBody } from '../json-array-body.js';
import * as answers from '../openapi/response-schemas.js';
import { booleanParam, integerParam, timeRangeParams } from '../query-params.js';
import { pathValue, tenantOf } from '../route-context.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';

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
function listPoints(ctx: AppContext): number {
  try {
    return auditListCost(limitParam(ctx));
  } catch {
    return 1;
  }
}

function pathName(ctx: AppContext, name: string): string {
  const value = pathValue(ctx, name);
  if (!isName(value)) {
    const rule = hasLoneSurrogate(value) ? 'must be well-formed text (no unpaired surrogates)' : `must be 1-${MAX_NAME_LENGTH} characters`;
    throw new ApiError(400, ApiErrorCode.REQUEST_PATH_INVALID, `path parameter \`${name}\` ${rule}`);
  }
  return value;
}

/** What the audit routes read: the tenant's records, and the verifier of its chain. */
export interface AuditRouteDeps {
  records: Pick<AuditChainRepository, 'list'>;
  /** Verifies tenants' audit chains for GET /api/v1/audit/verify, never hashing on the event loop. */
  verifier: ChainVerifier;
}

/** The records of `query`, streamed a slice at a time once the tenant's turn comes. */
type AuditList = (ctx: AppContext, query: AuditQuery) => Promise<void>;

const limitAndBefore = z.object({
  limit: z.number().int().min(1).max(AUDIT_LIST_MAX_LIMIT).optional().describe(`Most records (default ${AUDIT_LIST_DEFAULT_LIMIT}); the rate limit spends one point per ${AUDIT_LIST_RECORDS_PER_POINT} asked for`),
  before: z.number().int().min(1).optional().describe('Only records with a smaller seq (paging)'),
});
const recordsAnswer = { status: 200, schema: z.array(answers.auditRecord), description: 'records' } as const;
// A list costs what it asks for, not one request's point.
const listCost = { points: listPoints, unit: `one per ${AUDIT_LIST_RECORDS_PER_POINT} records asked for` };

/** The tenant's audit chain, newest first (seq descending, which is append order). */
export const AUDIT_ROUTES = declareRoutes<{ list: AuditList; verifier: ChainVerifier }>([
  {
    method: 'get',
    path: '/api/v1/audit',
    auth: 'bearer',
    role: 'ADMIN',
    cost: listCost,
    query: limitAndBefore,
    doc: { tag: 'audit', summary: 'The tenant\'s audit records, newest first', success: recordsAnswer, errors: {} },
    handle: async (ctx, { list }) => {
      await list(ctx, paging(ctx));
    },
  },
  {
    method: 'get',
    path: '/api/v1/audit/verify',
    auth: 'bearer',
    role: 'ADMIN',
    query: z.object({ full: z.enum(['true', 'false']).optional().describe('Walk the whole chain from seq 1') }),
    doc: {
      tag: 'audit',
      summary: 'Verify the tenant\'s chain',
      description:
        'Reads and hashes only the records appended since the tenant\'s last verification in this process (an unchanged head answers at once), unless `full=true` asks for, or AUDIT_VERIFY_FULL_INTERVAL_SECONDS calls for, a walk from seq 1. Concurrent calls of a tenant share one walk.',
      success: { status: 200, schema: answers.chainVerification, description: 'the verification' },
      errors: { 400: 'a `full` other than true or false (ERR_REQUEST_QUERY_INVALID)' },
    },
    handle: async (ctx, { verifier }) => {
      ctx.body = await verifier.verify(tenantOf(ctx), { full: booleanParam(ctx, 'full') });
    },
  },
  {
    method: 'get',
    path: '/api/v1/audit/type/{eventType}',
    auth: 'bearer',
    role: 'ADMIN',
    cost: listCost,
    pathParams: { eventType: `${AUDIT_EVENT_TYPES.slice(0, -1).join(', ')} or ${AUDIT_EVENT_TYPES.at(-1)}` },
    query: limitAndBefore,
    doc: { tag: 'audit', summary: 'Records of one event type', success: recordsAnswer, errors: { 400: 'unknown event type (ERR_REQUEST_PATH_INVALID, listing the known ones), or bad paging' } },
    handle: async (ctx, { list }) => {
      await list(ctx, { ...paging(ctx), eventType: eventTypeParam(ctx) });
    },
  },
  {
    method: 'get',
    path: '/api/v1/audit/policy/{policyModule}/{policyFunction}',
    auth: 'bearer',
    role: 'ADMIN',
    cost: listCost,
    pathParams: { policyModule: 'module name', policyFunction: 'rule name' },
    query: limitAndBefore,
    doc: { tag: 'audit', summary: 'Records of one policy function', success: recordsAnswer, errors: { 400: 'bad path or paging' } },
    handle: async (ctx, { list }) => {
      const policyModule = pathName(ctx, 'policyModule');
      const policyFunction = pathName(ctx, 'policyFunction');
      await list(ctx, { ...paging(ctx), policyModule, policyFunction });
    },
  },
  {
    method: 'get',
    path: '/api/v1/audit/range',
    auth: 'bearer',
    role: 'ADMIN',
    cost: listCost,
    query: limitAndBefore.extend({ startTime: z.string().describe('ISO 8601, inclusive'), endTime: z.string().describe('ISO 8601, inclusive') }),
    doc: { tag: 'audit', summary: 'Records within a time window', success: recordsAnswer, errors: { 400: 'missing or malformed time, or start after end (ERR_REQUEST_QUERY_INVALID)' } },
    handle: async (ctx, { list }) => {
      const { from, to } = timeRangeParams(ctx, 'startTime', 'endTime');
      await list(ctx, { ...paging(ctx), from, to });
    },
  },
]);

export function createAuditRoutes({ records, verifier }: AuditRouteDeps): RouteGroup {
  // A list is read and written a slice at a time, and a tenant's lists take turns, a few at once:
  // 40 lists of the largest page sent together hold another tenant's request for a few slices.
  const turns = createTenantTurns(AUDIT_LIST_TURNS_PER_TENANT);
  const list: AuditList = async (ctx, query) => {
    const release = await turns.take(tenantOf(ctx));
    try {
      const found = await readAuditList(records, tenantOf(ctx), query);
      const body = jsonArrayBody(found.map(view), AUDIT_LIST_SLICE);
      // The turn lasts until the answer is written (or the client is gone).
      body.once('close', release);
      ctx.type = 'json';
      ctx.body = body;
    } catch (error) {
      release();
      throw error;
    }
  };
  return bindRoutes(AUDIT_ROUTES, { list, verifier });
}
