// The policy registry as the service runs it: real HTTP on a port, real Redis (nonces, rate limit,
// BullMQ `policy-evaluate` under a unique prefix), a real worker with real threads, a real store
// (SQLite unless told otherwise), the built-in library. Threads load dist/workers/evaluation-thread.js, so
// `npx tsc -p tsconfig.json` must have run.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { createEvaluationRoutes, createPolicyRoutes, type RouteGroup } from '../../../src/api/index.js';
import type { AuditRecord } from '../../../src/audit/index.js';
import { createGraphqlRoute } from '../../../src/graphql/index.js';
import { createNonceGuard, createTokenSigner, type JwtKeyRing, type NonceGuard, type Role } from '../../../src/auth/index.js';
import { createPolicyClient, PolicyHttpError, type PolicyClient } from '../../../clients/typescript/src/index.js';
import { createEnginePool, type EnginePool } from '../../../src/engine/index.js';
import {
  createEvaluationDispatcher,
  createRedisBatchTransport,
  startEvaluationWorker,
  type EvaluationDispatcher,
  type EvaluationWorker,
} from '../../../src/evaluation/index.js';
import { createDomainDecider, createPolicyLookup, createRedisRolloutTally, type SharedRolloutTally } from '../../../src/policies/index.js';
import { openSqliteStore, type Store } from '../../../src/store/index.js';
import {
  buildEvaluationStack,
  connectRedis,
  createTestApp,
  listen,
  newKeyRing,
  REDIS_URL,
  registerTenant,
  removeRedisPrefix,
  type EvaluationStack,
  type TenantInfo,
} from '../../support/index.js';

export { REDIS_URL, type TenantInfo };

export interface PoliciesHarness {
  baseUrl: string;
  store: Store;
  /** The catalog, evaluation service and resolver the routes use. */
  stack: EvaluationStack;
  /** Where shadow copies are counted (flush it before reading a rollout). */
  rolloutTally: SharedRolloutTally;
  /** The worker side: its thread pool (stats) and BullMQ worker. */
  pool: EnginePool;
  worker: EvaluationWorker;
  redis: Redis;
  nonceGuard: NonceGuard;
  /** Signs the bearer tokens the app accepts. */
  keyRing: JwtKeyRing;
  /** Two registered tenants, each with its signing secret. */
  tenants: { a: TenantInfo; b: TenantInfo };
  /** A client signing for the tenant with the role (no retries). */
  signed(tenant: TenantInfo, role: Role): PolicyClient;
  /** A client sending a bearer token for the tenant with the role, and no signature. */
  bearer(tenant: TenantInfo, role: Role): Promise<PolicyClient>;
  /** The tenant's audit records of one type in its chain (everything appended so far is linked first), oldest first, read through GET /api/v1/audit/type. */
  auditOfType(tenant: TenantInfo, eventType: string): Promise<AuditRecord[]>;
  close(): Promise<void>;
}

/** The HTTP status and error envelope of a request that must fail. */
export async function failure(work: Promise<unknown>): Promise<{ status: number; code: string | null; body: Record<string, unknown> }> {
  try {
    await work;
  } catch (error) {
    if (error instanceof PolicyHttpError) return { status: error.status, code: error.code, body: error.body as Record<string, unknown> };
    throw error;
  }
  throw new Error('the request succeeded');
}

export interface PoliciesHarnessOptions {
  /** More route modules (e.g. GraphQL) built from the harness's parts. */
  extraRoutes?: (parts: { stack: EvaluationStack; store: Store; nonceGuard: NonceGuard }) => RouteGroup[];
  /** A fresh, empty store, closed by the harness; default a temporary SQLite file. */
  openStore?: () => Promise<Store>;
  /** The clock of rollups, activations, audit records and idempotency; default the system clock. */
  now?: () => Date;
}

/** `extraRoutes` for the signed GraphQL endpoint over the harness's catalog and evaluation path. */
export const graphqlRoutes: NonNullable<PoliciesHarnessOptions['extraRoutes']> = ({ stack, store, nonceGuard }) => [
  createGraphqlRoute({ tenants: store.tenants, nonceGuard, policies: createPolicyLookup(stack.catalog), decide: createDomainDecider(stack.evaluation) }),
];

export async function startPoliciesHarness(options: PoliciesHarnessOptions = {}): Promise<PoliciesHarness> {
  const prefix = `test-${randomUUID()}`;
  const dir = await mkdtemp(join(tmpdir(), 'pe-policies-'));
  const store = options.openStore ? await options.openStore() : await openSqliteStore(join(dir, 'store.sqlite'));
  const tenants = { a: await registerTenant(store, 'tenant-a'), b: await registerTenant(store, 'tenant-b') };

  const redis = await connectRedis();
  const pool: EnginePool = createEnginePool({ threads: 2 });
  const worker: EvaluationWorker = await startEvaluationWorker({ connection: REDIS_URL, pool, prefix });
  const dispatcher: EvaluationDispatcher = createEvaluationDispatcher({
    transport: createRedisBatchTransport({ connection: REDIS_URL, prefix, responseTimeoutMs: 15_000 }),
  });
  // Shadow copies as the service sends them: low-priority jobs, one batch in flight.
  const shadowDispatcher: EvaluationDispatcher = createEvaluationDispatcher({
    transport: createRedisBatchTransport({ connection: REDIS_URL, prefix, responseTimeoutMs: 15_000, priority: 10 }),
    maxInFlight: 1,
  });
  const rolloutTally = createRedisRolloutTally({ redis, keyPrefix: `${prefix}:` });
  const stack = await buildEvaluationStack({
    store,
    dispatcher,
    shadow: { dispatcher: shadowDispatcher, tally: rolloutTally },
    ...(options.now ? { now: options.now } : {}),
  });
  const nonceGuard = createNonceGuard({ redis, keyPrefix: `${prefix}:nonce:` });
  const keyRing = newKeyRing();
  const app = createTestApp({
    store,
    redis,
    keyRing,
    prefix,
    logLevel: process.env.POLICIES_TEST_LOG ?? 'silent',
    ...(options.now ? { now: options.now } : {}),
    routes: [
      createEvaluationRoutes({
        service: stack.evaluation,
        tenants: store.tenants,
        nonceGuard,
        maxBatchItems: 100,
      }),
      createPolicyRoutes({ catalog: stack.catalog, rollouts: stack.rollouts, service: stack.evaluation, tenants: store.tenants, nonceGuard }),
      ...(options.extraRoutes?.({ stack, store, nonceGuard }) ?? []),
    ],
  });
  const server = await listen(app);
  const { baseUrl } = server;
  const signer = createTokenSigner(keyRing);
  const token = (tenant: TenantInfo, role: Role) =>
    signer.sign({ subject: `user-of-${tenant.tenantId}`, tenantId: tenant.tenantId, roles: [role], ttlSeconds: 600 });

  return {
    baseUrl,
    store,
    stack,
    rolloutTally,
    pool,
    worker,
    redis,
    nonceGuard,
    keyRing,
    tenants,
    signed: (tenant, role) => createPolicyClient({ baseUrl, tenantId: tenant.tenantId, role, secret: tenant.secret, retries: 0 }),
    bearer: async (tenant, role) =>
      createPolicyClient({ baseUrl, tenantId: tenant.tenantId, role, bearerToken: await token(tenant, role), retries: 0 }),
    async auditOfType(tenant, eventType) {
      await stack.auditTrail.flush();
      const admin = createPolicyClient({ baseUrl, tenantId: tenant.tenantId, role: 'ADMIN', bearerToken: await token(tenant, 'ADMIN'), retries: 0 });
      const response = await admin.request<AuditRecord[]>('GET', `/api/v1/audit/type/${eventType}?limit=1000`);
      return response.body.reverse();
    },
    async close() {
      await server.close();
      await stack.evaluation.flush();
      await dispatcher.close();
      await shadowDispatcher.close();
      await rolloutTally.close();
      await stack.auditTrail.close();
      await worker.close();
      await pool.close();
      await removeRedisPrefix(prefix);
      await redis.quit();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
