// The policy registry as the service runs it: real HTTP on a port, real Redis (nonces, rate limit,
// BullMQ `policy-evaluate` under a unique prefix), a real worker with real threads, a real store
// (SQLite unless told otherwise), the built-in library. Threads load dist/workers/evaluation-thread.js, so
// `npx tsc -p tsconfig.json` must have run.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createApp, createEvaluationRoutes, createPolicyRoutes, createTenantRateLimiter, type RouteModule } from '../../../src/api/index.js';
import { createAuditChainWriter, type AuditChainWriter } from '../../../src/audit/index.js';
import { createJwtKeyRing, createNonceGuard, createTokenSigner, createTokenVerifier, type NonceGuard, type Role } from '../../../src/auth/index.js';
import { createPolicyClient, PolicyHttpError, type PolicyClient } from '../../../src/client/index.js';
import { createEnginePool, type EnginePool } from '../../../src/engine/index.js';
import { createEvaluationService } from '../../../src/evaluation/index.js';
import {
  QUEUE_NAMES,
  createEvaluationDispatcher,
  createRedisClient,
  queuePrefix,
  startEvaluationWorker,
  type EvaluationDispatcher,
  type EvaluationWorker,
} from '../../../src/jobs/index.js';
import { createLogger } from '../../../src/logging/index.js';
import {
  createPolicyRegistry,
  createStoredPolicyResolver,
  loadBuiltinLibrary,
  type PolicyRegistry,
} from '../../../src/policies/index.js';
import { openSqliteStore, type AuditRecord, type Store } from '../../../src/store/index.js';
import { createTenantService } from '../../../src/tenants/index.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface PoliciesHarness {
  baseUrl: string;
  store: Store;
  registry: PolicyRegistry;
  redis: Redis;
  nonceGuard: NonceGuard;
  /** Two registered tenants, each with its signing secret. */
  tenants: { a: TenantInfo; b: TenantInfo };
  /** A client signing for the tenant with the role (no retries). */
  signed(tenant: TenantInfo, role: Role): PolicyClient;
  /** A client sending a bearer token for the tenant with the role, and no signature. */
  bearer(tenant: TenantInfo, role: Role): Promise<PolicyClient>;
  /** The tenant's audit records of one type, oldest first, read through GET /api/v1/audit/type. */
  auditOfType(tenant: TenantInfo, eventType: string): Promise<AuditRecord[]>;
  close(): Promise<void>;
}

export interface TenantInfo {
  tenantId: string;
  secret: string;
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
  extraRoutes?: (parts: { registry: PolicyRegistry; store: Store; nonceGuard: NonceGuard }) => RouteModule[];
  /** A fresh, empty store, closed by the harness; default a temporary SQLite file. */
  openStore?: () => Promise<Store>;
}

export async function startPoliciesHarness(options: PoliciesHarnessOptions = {}): Promise<PoliciesHarness> {
  const prefix = `test-${randomUUID()}`;
  const dir = await mkdtemp(join(tmpdir(), 'pe-policies-'));
  const store = options.openStore ? await options.openStore() : await openSqliteStore(join(dir, 'store.sqlite'));
  const tenantService = createTenantService(store.tenants);
  const register = async (label: string): Promise<TenantInfo> => {
    const tenantId = `${label}-${randomBytes(4).toString('hex')}`;
    const { secret: { secret } } = await tenantService.register(tenantId);
    return { tenantId, secret };
  };
  const tenants = { a: await register('tenant-a'), b: await register('tenant-b') };

  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  const pool: EnginePool = createEnginePool({ threads: 2 });
  const worker: EvaluationWorker = await startEvaluationWorker({ connection: REDIS_URL, pool, prefix, concurrency: 4 });
  const dispatcher: EvaluationDispatcher = createEvaluationDispatcher({ connection: REDIS_URL, prefix, responseTimeoutMs: 15_000 });
  const auditWriter: AuditChainWriter = createAuditChainWriter(store.audit);
  const registry = createPolicyRegistry({
    policies: store.policies,
    rollups: store.rollups,
    audit: auditWriter,
    dispatcher,
    builtins: await loadBuiltinLibrary(),
  });
  const nonceGuard = createNonceGuard({ redis, keyPrefix: `${prefix}:nonce:` });
  const keyRing = createJwtKeyRing([{ kid: 'k1', secret: randomBytes(32).toString('base64url') }], 'test');
  const app = createApp({
    logger: createLogger({ level: process.env.POLICIES_TEST_LOG ?? 'silent' }),
    store,
    redis,
    tokenVerifier: createTokenVerifier(keyRing),
    rateLimiter: createTenantRateLimiter({ redis, points: 100_000, windowSeconds: 60, keyPrefix: `${prefix}:rate-limit` }),
    bodyLimitBytes: 1024 * 1024,
    routes: [
      createEvaluationRoutes({
        service: createEvaluationService({ dispatcher, audit: auditWriter, storedPolicies: createStoredPolicyResolver(registry) }),
        tenants: store.tenants,
        nonceGuard,
        maxBatchItems: 100,
      }),
      createPolicyRoutes({ registry, tenants: store.tenants, nonceGuard }),
      ...(options.extraRoutes?.({ registry, store, nonceGuard }) ?? []),
    ],
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signer = createTokenSigner(keyRing);
  const token = (tenant: TenantInfo, role: Role) =>
    signer.sign({ subject: `user-of-${tenant.tenantId}`, tenantId: tenant.tenantId, roles: [role], ttlSeconds: 600 });

  return {
    baseUrl,
    store,
    registry,
    redis,
    nonceGuard,
    tenants,
    signed: (tenant, role) => createPolicyClient({ baseUrl, tenantId: tenant.tenantId, role, secret: tenant.secret, retries: 0 }),
    bearer: async (tenant, role) =>
      createPolicyClient({ baseUrl, tenantId: tenant.tenantId, role, bearerToken: await token(tenant, role), retries: 0 }),
    async auditOfType(tenant, eventType) {
      const admin = createPolicyClient({ baseUrl, tenantId: tenant.tenantId, role: 'ADMIN', bearerToken: await token(tenant, 'ADMIN'), retries: 0 });
      const response = await admin.request<AuditRecord[]>('GET', `/api/v1/audit/type/${eventType}?limit=1000`);
      return response.body.reverse();
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await registry.flush();
      await dispatcher.close();
      await auditWriter.close();
      await worker.close();
      await pool.close();
      const inspect = createRedisClient(REDIS_URL, 'test-cleanup');
      const queue = new Queue(QUEUE_NAMES.policyEvaluate, { connection: inspect, prefix: queuePrefix(QUEUE_NAMES.policyEvaluate, prefix) });
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      const keys = await inspect.keys(`*${prefix}*`);
      if (keys.length > 0) await inspect.del(...keys);
      await inspect.quit();
      await redis.quit();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
