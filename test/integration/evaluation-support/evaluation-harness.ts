// The evaluation endpoints as the service runs them: real HTTP on a port, real Redis (BullMQ
// `policy-evaluate` with a unique prefix), a real worker with real threads, a real store. Threads
// load dist/workers/evaluation-thread.js, so `npx tsc -p tsconfig.json` must have run.
import { randomUUID } from 'node:crypto';
import { createEvaluationRoutes } from '../../../src/api/index.js';
import type { AuditRecord, AuditTrail } from '../../../src/audit/index.js';
import { createNonceGuard, createTokenSigner, type JwtKeyRing, type Role } from '../../../src/auth/index.js';
import { createPolicyClient, type PolicyClient, type PolicyClientOptions } from '../../../clients/typescript/src/index.js';
import { createEnginePool, type EnginePool, type EnginePoolOptions, type EngineRequest } from '../../../src/engine/index.js';
import {
  createEvaluationDispatcher,
  createRedisBatchTransport,
  SOURCE_EVALUATED,
  startEvaluationWorker,
  type DispatchOptions,
  type EvaluationDispatcher,
  type EvaluationLimits,
  type EvaluationWorker,
} from '../../../src/evaluation/index.js';
import type { Store } from '../../../src/store/index.js';
import {
  buildEvaluationStack,
  connectRedis,
  createTestApp,
  listen,
  newKeyRing,
  REDIS_URL,
  registerTenant,
  removeRedisPrefix,
} from '../../support/index.js';

export { newKeyRing, REDIS_URL };

export interface EvaluationHarnessOptions {
  /** A fresh, empty store; closed by the harness. */
  openStore: () => Promise<Store>;
  /** Run a worker with a pool of these settings (default: 2 threads); false runs none. */
  worker?: EnginePoolOptions | false;
  /** Dispatcher's wait for a worker's answer; default 10 s. */
  responseTimeoutMs?: number;
  maxBatchItems?: number;
  limits?: Partial<EvaluationLimits>;
  /** Rate-limit quota per tenant and 60 s window; default 100,000. */
  rateLimitPoints?: number;
}

export interface EvaluationHarness {
  baseUrl: string;
  /** Queue and key prefix of this harness (REDIS_KEY_PREFIX). */
  prefix: string;
  store: Store;
  tenantId: string;
  /** The tenant's request-signing secret. */
  secret: string;
  keyRing: JwtKeyRing;
  pool: EnginePool | null;
  worker: EvaluationWorker | null;
  auditTrail: AuditTrail;
  /** Item counts of every dispatcher call the service made, in order. */
  dispatchCalls: number[];
  /** A signed client (role MEMBER, no retries) unless options say otherwise. */
  client(options?: Partial<PolicyClientOptions>): PolicyClient;
  token(roles: Role[], options?: { tenant?: string; sub?: string; ring?: JwtKeyRing }): Promise<string>;
  /** The tenant's SOURCE_EVALUATED records in its chain (everything appended so far is linked first), oldest first. */
  sourceEvaluations(): Promise<AuditRecord[]>;
  close(): Promise<void>;
}

export async function startEvaluationHarness(options: EvaluationHarnessOptions): Promise<EvaluationHarness> {
  const prefix = `test-${randomUUID()}`;
  const store = await options.openStore();
  const { tenantId, secret } = await registerTenant(store, 'acme');
  const redis = await connectRedis();

  let pool: EnginePool | null = null;
  let worker: EvaluationWorker | null = null;
  if (options.worker !== false) {
    pool = createEnginePool({ threads: 2, ...options.worker });
    worker = await startEvaluationWorker({ connection: REDIS_URL, pool, prefix, concurrency: 4 });
  }
  const dispatcher: EvaluationDispatcher = createEvaluationDispatcher({
    transport: createRedisBatchTransport({ connection: REDIS_URL, prefix, responseTimeoutMs: options.responseTimeoutMs ?? 10_000 }),
    maxBatchItems: 64,
    flushMs: 1,
  });
  const dispatchCalls: number[] = [];
  const countingDispatcher = {
    dispatch(requests: readonly EngineRequest[], dispatchOptions?: DispatchOptions) {
      dispatchCalls.push(requests.length);
      return dispatcher.dispatch(requests, dispatchOptions);
    },
  };
  const stack = await buildEvaluationStack({ store, dispatcher: countingDispatcher, ...(options.limits ? { limits: options.limits } : {}) });
  const { auditTrail } = stack;
  const keyRing = newKeyRing();
  const app = createTestApp({
    store,
    redis,
    keyRing,
    prefix,
    ...(options.rateLimitPoints !== undefined ? { rateLimitPoints: options.rateLimitPoints } : {}),
    routes: [
      createEvaluationRoutes({
        service: stack.evaluation,
        tenants: store.tenants,
        nonceGuard: createNonceGuard({ redis, keyPrefix: `${prefix}:nonce:` }),
        maxBatchItems: options.maxBatchItems ?? 1000,
      }),
    ],
  });
  const server = await listen(app);
  const { baseUrl } = server;

  return {
    baseUrl,
    prefix,
    store,
    tenantId,
    secret,
    keyRing,
    pool,
    worker,
    auditTrail,
    dispatchCalls,
    client: (overrides = {}) => createPolicyClient({ baseUrl, tenantId, role: 'MEMBER', secret, retries: 0, ...overrides }),
    token: (roles, spec = {}) =>
      createTokenSigner(spec.ring ?? keyRing).sign({
        subject: spec.sub ?? 'alice',
        tenantId: spec.tenant ?? tenantId,
        roles,
        ttlSeconds: 600,
      }),
    async sourceEvaluations() {
      await auditTrail.flush();
      const records = await store.audit.list(tenantId, { eventType: SOURCE_EVALUATED, limit: 10_000 });
      return records.reverse();
    },
    async close() {
      await server.close();
      await stack.evaluation.flush();
      await dispatcher.close();
      await auditTrail.close();
      await worker?.close();
      await pool?.close();
      await removeRedisPrefix(prefix);
      await redis.quit();
      await store.close();
    },
  };
}
