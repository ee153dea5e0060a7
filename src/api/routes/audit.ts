import { z } from 'zod';
import {
  AUDIT_LIST_DEFAULT_LIMIT,
  AUDIT_LIST_MAX_LIMIT,
  AUDIT_LIST_RECORDS_PER_POINT,
  AUDIT_LIST_SLICE,
  AUDIT_LIST_TURNS_PER_TENANT,
  auditListCost,
  computeAuditContentHash,
  createTenantTurns,
  findAuditRecord,
  isAuditRecordId,
  readAuditList,
  type AuditChainRepository,
  type AuditLinkRepository,
  type AuditQuery,
  type ChainVerifier,
  type FoundAuditRecord,
} from '../../audit/index.js';
import { hasLoneSurrogate, isName, MAX_NAME_LENGTH } from '../../kernel/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext } from '../app-types.js';
import { AUDIT_EVENT_TYPES } from '../audit-event-types.js';
import { auditRecordView } from '../audit-record-view.js';
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

/**
 * A record found by id: the listed fields, `linked`, and `contentHash` computed from the content
 * as read (not as stored beside it), so a client comparing it with its receipt checks the content
 * itself. Until the record is linked, its seq, hash and previousHash are null.
 */
function foundView({ linked, record }: FoundAuditRecord) {
  const { id, eventType, policyModule, policyFunction, actorId, occurredAt, payload } = record;
  const content = { eventType, policyModule, policyFunction, actorId, occurredAt, payload };
  return {
    id,
    seq: linked ? record.seq : null,
    ...content,
    hash: linked ? record.hash : null,
    previousHash: linked ? record.previousHash : null,
    linked,
    contentHash: computeAuditContentHash(id, content),
  };
}

function recordIdParam(ctx: AppContext): string {
  const id = pathValue(ctx, 'id');
  if (!isAuditRecordId(id)) {
    throw new ApiError(400, ApiErrorCode.REQUEST_PATH_INVALID, 'path parameter `id` must be an audit record id: a UUID in lowercase hex (8-4-4-4-12), as X-Audit-Record-Id carries it');
  }
  return id;
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

/** What the audit routes read: the tenant's records, those not yet linked, and the verifier of its chain. */
export interface AuditRouteDeps {
  records: Pick<AuditChainRepository, 'list' | 'findById'>;
  /** Records stored before their answer and not yet linked: found by id, and counted by verify. */
  links: Pick<AuditLinkRepository, 'findUnlinked' | 'unlinkedSummary'>;
  /** Verifies tenants' audit chains for GET /api/v1/audit/verify, never hashing on the event loop. */
  verifier: ChainVerifier;
  /** Milliseconds since the epoch: the age of the oldest unlinked record. Default Date.now. */
  now?: () => number;
}

/** The bound form of AuditRouteDeps: what the handlers use. */
interface AuditScope {
  list: AuditList;
  verifier: ChainVerifier;
  find: (tenantId: string, id: string) => Promise<FoundAuditRecord | null>;
  /** How many of the tenant's records wait for their link, and how long the oldest has waited. */
  unlinked: (tenantId: string) => Promise<{ unlinked: number; oldestUnlinkedAgeMs: number | null }>;
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
export const AUDIT_ROUTES = declareRoutes<AuditScope>([
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
        'Reads and hashes only the records appended since the tenant\'s last verification in this process (an unchanged head answers at once), unless `full=true` asks for, or AUDIT_VERIFY_FULL_INTERVAL_SECONDS calls for, a walk from seq 1. Concurrent calls of a tenant share one walk. `unlinked` counts the records stored (each before its answer) but not linked into the chain yet, `oldestUnlinkedAgeMs` says how long the oldest of them has waited.',
      success: { status: 200, schema: answers.chainVerification, description: 'the verification' },
      errors: { 400: 'a `full` other than true or false (ERR_REQUEST_QUERY_INVALID)' },
    },
    handle: async (ctx, { verifier, unlinked }) => {
      const tenantId = tenantOf(ctx);
      const full = booleanParam(ctx, 'full');
      const [verification, waiting] = await Promise.all([verifier.verify(tenantId, { full }), unlinked(tenantId)]);
      ctx.body = { ...verification, ...waiting };
    },
  },
  {
    method: 'get',
    path: '/api/v1/audit/records/{id}',
    auth: 'bearer',
    role: 'ADMIN',
    pathParams: { id: 'the record\'s id, as an answer\'s receipt names it (X-Audit-Record-Id, auditRecordId)' },
    doc: {
      tag: 'audit',
      summary: 'One record by id, linked or not yet',
      description:
        'Every evaluation\'s record is stored before its answer leaves, and linked into the chain shortly after. Once linked the record is as the lists show it, with `linked: true`; until then `seq`, `hash` and `previousHash` are null and `linked` is false. `contentHash` is computed from the record as read: equal to the receipt\'s when the record is what was answered.',
      success: { status: 200, schema: answers.foundAuditRecord, description: 'the record' },
      errors: {
        400: 'an id that is no record id (ERR_REQUEST_PATH_INVALID)',
        404: 'the tenant has no record with that id (ERR_AUDIT_RECORD_NOT_FOUND)',
      },
    },
    handle: async (ctx, { find }) => {
      const id = recordIdParam(ctx);
      const found = await find(tenantOf(ctx), id);
      if (found === null) throw new ApiError(404, ApiErrorCode.AUDIT_RECORD_NOT_FOUND, `no audit record \`${id}\` exists for this tenant`);
      ctx.body = foundView(found);
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

export function createAuditRoutes({ records, links, verifier, now = Date.now }: AuditRouteDeps): RouteGroup {
  // A list is read and written a slice at a time, and a tenant's lists take turns, a few at once:
  // 40 lists of the largest page sent together hold another tenant's request for a few slices.
  const turns = createTenantTurns(AUDIT_LIST_TURNS_PER_TENANT);
  const list: AuditList = async (ctx, query) => {
    const release = await turns.take(tenantOf(ctx));
    try {
      const found = await readAuditList(records, tenantOf(ctx), query);
      const body = jsonArrayBody(found.map(auditRecordView), AUDIT_LIST_SLICE);
      // The turn lasts until the answer is written (or the client is gone).
      body.once('close', release);
      ctx.type = 'json';
      ctx.body = body;
    } catch (error) {
      release();
      throw error;
    }
  };
  const unlinked: AuditScope['unlinked'] = async (tenantId) => {
    // One indexed read: the linker keeps a tenant's unlinked records few.
    const { count, oldestStoredAt } = await links.unlinkedSummary(tenantId);
    return { unlinked: count, oldestUnlinkedAgeMs: oldestStoredAt === null ? null : Math.max(0, now() - Date.parse(oldestStoredAt)) };
  };
  const find: AuditScope['find'] = (tenantId, id) => findAuditRecord({ chain: records, links }, tenantId, id);
  return bindRoutes(AUDIT_ROUTES, { list, verifier, find, unlinked });
}
