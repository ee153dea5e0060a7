import type { ParameterizedContext } from 'koa';
import {
  bindRoutes,
  declareRoutes,
  errorEnvelope,
  isExposedError,
  type AppContext,
  type AppMiddleware,
  type RouteGroup,
} from '../api/index.js';
import { readRawBody, type NonceGuard, type SignedRequestState } from '../auth/index.js';
import type { TenantRepository } from '../tenants/index.js';
import { createGraphqlHandler, type GraphqlEndpoint, type GraphqlRequest } from './create-graphql-handler.js';
import { createGraphqlSchema } from './create-graphql-schema.js';
import type { DecideFn } from './decide.js';
import { GraphqlErrorCode } from './graphql-error-codes.js';
import { graphqlAnswer, graphqlQueryParams, graphqlRefusal, graphqlRequestBody } from './graphql-http-schemas.js';
import { resolveGraphqlLimits, type GraphqlLimits } from './graphql-limits.js';
import type { PolicyReader } from './policy-reader.js';

export const GRAPHQL_PATH = '/graphql';

/** What the endpoint needs; the API part (src/service/) builds it from the concrete parts. */
export interface GraphqlDeps {
  /** Signing secrets of each tenant. */
  tenants: Pick<TenantRepository, 'activeSecrets'>;
  nonceGuard: NonceGuard;
  policies: PolicyReader;
  decide: DecideFn;
  limits?: Partial<GraphqlLimits>;
  /** Query texts whose parse and validation outcome is remembered; default 256, 0 disables. */
  documentCacheSize?: number;
  /** Largest answer in UTF-8 bytes (RESPONSE_MAX_BYTES); default DEFAULT_RESPONSE_MAX_BYTES. */
  maxResponseBytes?: number;
  /** ± seconds a signed timestamp may be off server time; default 300 (the spec's 5 minutes). */
  signatureWindowSeconds?: number;
  /** Unix seconds; tests move the clock with it. */
  nowSeconds?: () => number;
}

type GraphqlState = SignedRequestState & {
  /** The request as the handler reads it, and the domain decisions it would run. */
  graphql?: { request: GraphqlRequest; decisions: number };
};
type GraphqlKoaContext = ParameterizedContext<GraphqlState>;

/** What the handlers use: the prepared endpoint and what its resolvers read. */
interface GraphqlScope {
  endpoint: GraphqlEndpoint;
  policies: PolicyReader;
  decide: DecideFn;
}

/**
 * Refusals before the GraphQL layer (tenant header 400, signature 403, 413, rate limit 429) keep
 * the service's error envelope and also carry `errors[0].extensions.code`, so both kinds of
 * client read them. Anything unexpected goes on to the app's error handler (500 with a reference).
 */
const refusalsAsGraphqlErrors: AppMiddleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!isExposedError(error)) throw error;
    ctx.status = error.status;
    if (error.headers) ctx.set({ ...error.headers });
    ctx.body = refusalBody(error.code, error.message);
  }
};

function refusalBody(code: string, message: string) {
  return { errors: [{ message, extensions: { code } }], ...errorEnvelope(code, message) };
}

/** graphql-http answers these without a body. */
const BODYLESS_REFUSALS: Readonly<Record<number, { code: string; message: string }>> = {
  405: { code: GraphqlErrorCode.METHOD_NOT_ALLOWED, message: 'send GraphQL requests with GET or POST' },
  406: {
    code: GraphqlErrorCode.NOT_ACCEPTABLE,
    message: 'the endpoint answers with application/graphql-response+json or application/json; accept one of them',
  },
  415: { code: GraphqlErrorCode.MEDIA_TYPE_UNSUPPORTED, message: 'POST bodies must be sent as Content-Type: application/json' },
};

/**
 * Reads the request as graphql-http will, and counts the domain decisions it would run, before
 * the rate limit: a query is charged for what it asks, and refused whole (429, nothing spent)
 * when that does not fit the tenant's quota.
 */
async function countDecisions(koaContext: AppContext, { endpoint, policies, decide }: GraphqlScope): Promise<void> {
  const ctx = koaContext as unknown as GraphqlKoaContext;
  const auth = ctx.state.auth;
  if (!auth) throw new Error('graphql request reached the handler without a verified signature');
  const request: GraphqlRequest = {
    method: ctx.method,
    url: ctx.originalUrl,
    headers: ctx.req.headers,
    body: await requestBody(ctx),
    raw: ctx.req,
    context: { tenantId: auth.tenantId, role: auth.role, actorId: auth.actorId, policies, decide, log: koaContext.state.log, receipts: new Map() },
  };
  ctx.state.graphql = { request, decisions: await endpoint.decisionsIn(request) };
}

async function serve(koaContext: AppContext, { endpoint }: GraphqlScope): Promise<void> {
  const ctx = koaContext as unknown as GraphqlKoaContext;
  const request = ctx.state.graphql?.request;
  if (!request) throw new Error('graphql request reached the handler before it was read');
  const [body, init] = await endpoint.handle(request);
  ctx.status = init.status ?? 200;
  for (const [name, value] of Object.entries(init.headers ?? {})) {
    if (value !== undefined) ctx.set(name, value);
  }
  const refusal = body === null ? BODYLESS_REFUSALS[ctx.status] : undefined;
  ctx.body = refusal ? refusalBody(refusal.code, refusal.message) : (body ?? '');
}

/**
 * The JSON a body parser left (createApp's keeps the raw text beside it), or else the raw bytes the
 * signature check read (and kept), for graphql-http to parse. A GET carries its request in the URL.
 */
async function requestBody(ctx: GraphqlKoaContext): Promise<string | Record<string, unknown> | null> {
  if (ctx.method !== 'POST') return null;
  const parsed: unknown = (ctx.request as { body?: unknown }).body;
  if (parsed !== undefined && parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    return parsed as Record<string, unknown>;
  }
  // Anything else (an array, which graphql-http refuses) goes as the text received: serialising
  // the parsed value again would recurse through whatever nesting a caller sent.
  const raw = await readRawBody(ctx);
  return raw.length === 0 ? null : raw.toString('utf8');
}

/**
 * GET and POST /graphql behind the signed-request check (minimum VIEWER; MEMBER is checked per
 * operation once the document is parsed) and the tenant rate limit, which spends one point per
 * domain decision, as a batch spends one per item: aliases buy no evaluations.
 */
export const GRAPHQL_ROUTES = declareRoutes<GraphqlScope>(
  (['get', 'post'] as const).map((method) => ({
    method,
    path: GRAPHQL_PATH,
    auth: 'signed' as const,
    role: 'VIEWER' as const,
    ...(method === 'get' ? { query: graphqlQueryParams } : { body: graphqlRequestBody }),
    around: refusalsAsGraphqlErrors,
    read: countDecisions,
    cost: { points: (ctx) => (ctx as unknown as GraphqlKoaContext).state.graphql?.decisions ?? 1 },
    doc:
      method === 'get'
        ? {
            tag: 'graphql',
            summary: 'A GraphQL query in the query string',
            success: { status: 200, schema: graphqlAnswer, description: 'GraphQL over HTTP' },
            errors: { 400: 'not a valid GraphQL request', 405: 'a mutation sent with GET' },
            errorSchema: graphqlRefusal,
          }
        : {
            tag: 'graphql',
            summary: 'A GraphQL query (policy lookups and domain decisions)',
            success: { status: 200, schema: graphqlAnswer, description: 'GraphQL over HTTP' },
            errors: { 400: 'not a valid GraphQL request, a mutation, or over a limit' },
            errorSchema: graphqlRefusal,
          },
    handle: serve,
  })),
);

/**
 * The endpoint for `createApp({ routes })`. Builds the schema and checks the limits now, so a bad
 * setting stops start-up.
 */
export function createGraphqlRoute(deps: GraphqlDeps): RouteGroup {
  const endpoint = createGraphqlHandler({
    schema: createGraphqlSchema(),
    limits: resolveGraphqlLimits(deps.limits),
    ...(deps.documentCacheSize !== undefined ? { documentCacheSize: deps.documentCacheSize } : {}),
    ...(deps.maxResponseBytes !== undefined ? { maxResponseBytes: deps.maxResponseBytes } : {}),
  });
  const { tenants, nonceGuard, signatureWindowSeconds, nowSeconds } = deps;
  return bindRoutes(GRAPHQL_ROUTES, { endpoint, policies: deps.policies, decide: deps.decide }, {
    tenants,
    nonceGuard,
    ...(signatureWindowSeconds !== undefined ? { signatureWindowSeconds } : {}),
    ...(nowSeconds !== undefined ? { nowSeconds } : {}),
  });
}
