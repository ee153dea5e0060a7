/**
 * A real service for the GraphQL suites: createApp with the GraphQL route on an ephemeral port,
 * real Redis (nonces, rate limit), a real SQLite tenant store, and decisions through the real
 * evaluation path (built-in library → dispatcher → Piscina threads). Threads load
 * dist/workers/evaluation-thread.js: run `npx tsc -p tsconfig.json` first.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { createApp, createTenantRateLimiter } from '../../../src/api/index.js';
import { createJwtKeyRing, createNonceGuard, createTokenVerifier } from '../../../src/auth/index.js';
import { signRequest } from '../../../src/auth/request-signature.js';
import { createPolicyClient, type PolicyClient } from '../../../clients/typescript/src/index.js';
import { createEnginePool, type EnginePool } from '../../../src/engine/index.js';
import {
  createGraphqlRoute,
  type DecideFn,
  type GraphqlLimits,
  type PolicyReader,
  type PolicyView,
} from '../../../src/graphql/index.js';
import { createEvaluationDispatcher, type EvaluationDispatcher } from '../../../src/evaluation/index.js';
import { createLocalBatchTransport } from '../../../src/jobs/index.js';
import { createLogger } from '../../../src/logging/index.js';
import { createDomainDecider, createPolicyLookup } from '../../../src/policies/index.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/index.js';
import { buildEvaluationStack, testChainVerifier, withCommonRoutes, type EvaluationStack } from '../../support/index.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Two tenants, each with its own signing secret. */
export const TENANTS = {
  acme: 'acme-graphql-secret-0001',
  globex: 'globex-graphql-secret-0001',
} as const;
export type TenantName = keyof typeof TENANTS;

export interface DecideCall {
  tenantId: string;
  policyModule: string;
  policyFunction: string;
  args: unknown[];
}

export interface HarnessOptions {
  limits?: Partial<GraphqlLimits>;
  /** Replaces the real evaluation path (e.g. to make it unavailable). */
  decide?: DecideFn;
  policies?: readonly PolicyView[];
  /** getPolicy/listPolicies from the real catalog instead of `policies` (decisions always take the real path). */
  registry?: boolean;
  rateLimitPoints?: number;
  /** The answer bound (RESPONSE_MAX_BYTES); default the service's. */
  maxResponseBytes?: number;
}

export interface SignedInit {
  method?: 'GET' | 'POST' | 'PUT' | 'HEAD';
  body?: string;
  tenant?: string;
  role?: string;
  secret?: string;
  timestamp?: number;
  nonce?: string;
  headers?: Record<string, string>;
}

export interface GraphqlHarness {
  baseUrl: string;
  redis: Redis;
  store: SqliteStore;
  /** The evaluation path behind decisions (and behind getPolicy/listPolicies with `registry: true`). */
  stack: EvaluationStack;
  /** Every decision asked for, in order. */
  decideCalls: DecideCall[];
  /** fetch with the five signing headers computed over exactly what is sent. */
  signedFetch(pathWithQuery: string, init?: SignedInit): Promise<Response>;
  /** POST /graphql with a signed JSON body; returns status and parsed body. */
  graphql(
    query: string,
    variables?: Record<string, unknown>,
    options?: Omit<SignedInit, 'body' | 'method'>,
  ): Promise<{ status: number; body: GraphqlBody; headers: Headers }>;
  client(tenant: TenantName, role: string): PolicyClient;
  close(): Promise<void>;
}

export interface GraphqlBody {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
  [key: string]: unknown;
}

/** An in-memory registry holding each policy under its tenant; a version's source is that of its first policy. */
export function memoryPolicyReader(views: readonly PolicyView[]): PolicyReader {
  const owned = (tenantId: string) => views.filter((view) => view.tenantId === tenantId).map(({ tenantId: _, ...view }) => view);
  return {
    async get(tenantId, id) {
      return owned(tenantId).find((view) => view.id === id) ?? null;
    },
    async list(tenantId, { page, size }) {
      return owned(tenantId)
        .slice(page * size, (page + 1) * size)
        .map(({ source: _, ...view }) => view);
    },
    async source(tenantId, policyModule, version) {
      const found = owned(tenantId).find((view) => view.policyModule === policyModule && view.version === version);
      if (found?.source === undefined) throw new Error(`no source of ${policyModule}@${version}`);
      return found.source;
    },
  };
}

let shared: { pool: EnginePool; dispatcher: EvaluationDispatcher; users: number } | null = null;


/** One engine per test file, shared by its harnesses: threads are the costly part. */
async function acquireEngine(): Promise<EvaluationDispatcher> {
  if (!shared) {
    const pool = createEnginePool({ threads: 1 });
    shared = { pool, dispatcher: createEvaluationDispatcher({ transport: createLocalBatchTransport(pool) }), users: 0 };
  }
  shared.users++;
  return shared.dispatcher;
}

async function releaseEngine(): Promise<void> {
  if (!shared || --shared.users > 0) return;
  const { pool, dispatcher } = shared;
  shared = null;
  await dispatcher.close();
  await pool.close();
}

export async function startGraphqlHarness(options: HarnessOptions = {}): Promise<GraphqlHarness> {
  const keyPrefix = `test-${randomUUID()}`;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  const store: SqliteStore = await openSqliteStore(':memory:');
  const createdAt = new Date().toISOString();
  for (const [tenantId, secret] of Object.entries(TENANTS)) {
    await store.tenants.create({ tenantId, createdAt }, { version: 1, secret, createdAt });
  }

  const dispatcher = await acquireEngine();
  const stack = await buildEvaluationStack({ store, dispatcher });
  const realDecide = createDomainDecider(stack.evaluation);
  const decideCalls: DecideCall[] = [];
  const decide: DecideFn = (caller, policyModule, policyFunction, args) => {
    decideCalls.push({ tenantId: caller.tenantId, policyModule, policyFunction, args });
    return (options.decide ?? realDecide)(caller, policyModule, policyFunction, args);
  };

  const logger = createLogger({ level: process.env.GRAPHQL_TEST_LOG ?? 'silent' });
  const app = createApp({
    logger,
    idempotency: store.idempotency,
    tokenVerifier: createTokenVerifier(createJwtKeyRing([{ kid: 'k1', secret: randomBytes(32).toString('base64url') }], 'test')),
    rateLimiter: createTenantRateLimiter({
      redis,
      points: options.rateLimitPoints ?? 100_000,
      windowSeconds: 60,
      keyPrefix: `${keyPrefix}:rate:`,
    }),
    bodyLimitBytes: 1024 * 1024,
    routes: withCommonRoutes({ store, redis, auditVerifier: testChainVerifier(store) }, [
      createGraphqlRoute({
        tenants: store.tenants,
        nonceGuard: createNonceGuard({ redis, keyPrefix: `${keyPrefix}:nonce:` }),
        policies: options.registry ? createPolicyLookup(stack.catalog) : memoryPolicyReader(options.policies ?? []),
        decide,
        ...(options.limits ? { limits: options.limits } : {}),
        ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
      }),
    ]),
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const signedFetch = (pathWithQuery: string, init: SignedInit = {}) => {
    const method = init.method ?? 'POST';
    const tenant = init.tenant ?? 'acme';
    const secret = init.secret ?? TENANTS[tenant as TenantName] ?? 'no-secret-for-this-tenant';
    const signature = signRequest({
      method,
      pathWithQuery,
      body: init.body ?? '',
      tenantId: tenant,
      role: init.role ?? 'MEMBER',
      secret,
      ...(init.timestamp !== undefined ? { timestamp: init.timestamp } : {}),
      ...(init.nonce !== undefined ? { nonce: init.nonce } : {}),
    });
    const headers: Record<string, string> = { ...signature, ...init.headers };
    if (init.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    return fetch(`${baseUrl}${pathWithQuery}`, { method, headers, ...(init.body !== undefined ? { body: init.body } : {}) });
  };

  return {
    baseUrl,
    redis,
    store,
    stack,
    decideCalls,
    signedFetch,
    async graphql(query, variables, signed = {}) {
      const body = JSON.stringify(variables === undefined ? { query } : { query, variables });
      const response = await signedFetch('/graphql', { ...signed, method: 'POST', body });
      return { status: response.status, body: (await response.json()) as GraphqlBody, headers: response.headers };
    },
    client(tenant, role) {
      return createPolicyClient({ baseUrl, tenantId: tenant, role, secret: TENANTS[tenant], retries: 0 });
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await stack.evaluation.flush();
      await stack.auditTrail.close();
      await redis.quit();
      await store.close();
      await releaseEngine();
    },
  };
}
