// The service's HTTP app as the integration harnesses build it: real token verifier, a real Redis
// rate limiter with a quota no suite reaches, a 1 MiB body limit, and the routes under test.
import type { Redis } from 'ioredis';
import {
  createApp,
  createAuditRoutes,
  createConsoleRoutes,
  createHealthRoutes,
  createOpenApiRoutes,
  createRollupRoutes,
  createTenantRateLimiter,
  createVersionRoutes,
  type RouteGroup,
} from '../../src/api/index.js';
import { createChainPageThreads, createChainVerifier, type ChainVerifier } from '../../src/audit/index.js';
import { createTokenVerifier, type JwtKeyRing } from '../../src/auth/index.js';
import { createLogger } from '../../src/logging/index.js';
import type { Store } from '../../src/store/index.js';

export interface TestAppParts {
  store: Store;
  redis: Redis;
  keyRing: JwtKeyRing;
  /** The suite's Redis key prefix. */
  prefix: string;
  /** The routes under test, after those every app of the service has (withCommonRoutes). */
  routes: RouteGroup[];
  /** Default `silent`. */
  logLevel?: string;
  /** Rate-limit quota per tenant and 60 s window; default 100,000 (no suite reaches it). */
  rateLimitPoints?: number;
  /** The app's clock (idempotency expiry); default the system clock. */
  now?: () => Date;
  /** Default testChainVerifier(store). */
  auditVerifier?: ChainVerifier;
}

/**
 * The chain verifier as the API app (src/service/api-app.ts) builds it with the default settings.
 * Its threads start on first use and end when idle; an idle thread does not keep the process
 * alive, so nothing needs closing.
 */
export function testChainVerifier(store: Store, options: { fullIntervalMs?: number } = {}): ChainVerifier {
  const threads = createChainPageThreads(2);
  return createChainVerifier({
    records: store.audit,
    check: threads.check,
    storedPages: threads,
    concurrency: 2,
    fullIntervalMs: options.fullIntervalMs ?? 3_600_000,
  });
}

/**
 * The route groups every app of the suites has ahead of `own`, built as the API app builds them:
 * health, version, the OpenAPI document (of these routes) and its page, the console, the audit
 * chain and the rollups.
 */
export function withCommonRoutes(parts: { store: Store; redis: Redis; auditVerifier: ChainVerifier }, own: readonly RouteGroup[]): RouteGroup[] {
  const routes: RouteGroup[] = [
    createHealthRoutes({ store: parts.store, redis: parts.redis }),
    createVersionRoutes(),
    createOpenApiRoutes(() => routes),
    createConsoleRoutes(),
    createAuditRoutes({ records: parts.store.audit, links: parts.store.auditLinks, verifier: parts.auditVerifier }),
    createRollupRoutes(parts.store.rollups),
    ...own,
  ];
  return routes;
}

export function createTestApp({ store, redis, keyRing, prefix, routes, logLevel = 'silent', rateLimitPoints = 100_000, now, auditVerifier }: TestAppParts): ReturnType<typeof createApp> {
  return createApp({
    logger: createLogger({ level: logLevel }),
    idempotency: store.idempotency,
    tokenVerifier: createTokenVerifier(keyRing),
    rateLimiter: createTenantRateLimiter({ redis, points: rateLimitPoints, windowSeconds: 60, keyPrefix: `${prefix}:rate-limit` }),
    bodyLimitBytes: 1024 * 1024,
    routes: withCommonRoutes({ store, redis, auditVerifier: auditVerifier ?? testChainVerifier(store) }, routes),
    ...(now ? { now } : {}),
  });
}
