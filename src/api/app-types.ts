import type Router from '@koa/router';
import type { Redis } from 'ioredis';
import type { Middleware, ParameterizedContext } from 'koa';
import type { ChainVerifier } from '../audit/index.js';
import type { Principal, Role, TokenVerifier } from '../auth/index.js';
import type { IdempotentResponse } from '../idempotency/index.js';
import type { Logger } from '../logging/index.js';
import type { ServiceMetrics } from '../metrics/index.js';
import type { Store } from '../store/index.js';
import type { TenantRateLimiter } from './tenant-rate-limiter.js';

/** What middleware leaves in `ctx.state` for the handlers after it. */
export interface AppState {
  requestId: string;
  /** Child logger carrying the request id. */
  log: Logger;
  /** Set by the tenant header middleware. */
  tenantId?: string;
  /** Set by an authentication middleware. */
  principal?: Principal;
  /** The error envelope's code of a refusal a route answered itself, once its body is serialised. */
  errorCode?: string;
  /**
   * Set by a handler as soon as its effect is stored, before any step that may still fail (its
   * audit record): the answer a repeat of the request's `Idempotency-Key` replays. The key then
   * keeps that answer, whatever this attempt answers, and is never freed for a second run.
   */
  storedEffectAnswer?: IdempotentResponse;
  /**
   * Set by the idempotency middleware on a request with an `Idempotency-Key` that it runs: `ref`
   * names the key and the request, the same on every repeat. A handler that stores it with its
   * effect lets a repeat find that effect even after the key was freed (the process stopped before
   * it wrote the key's answer, and the key's lease ended); effects stored before `since` (the key's
   * replay period back from now) are forgotten, as the key is.
   */
  idempotentRequest?: KeyedRequest;
}

/** A request with an `Idempotency-Key`, as a handler may record it with its effect. */
export interface KeyedRequest {
  ref: string;
  /** ISO 8601. */
  since: string;
}

export type AppContext = ParameterizedContext<AppState>;
export type AppMiddleware = Middleware<AppState>;
export type AppRouter = Router<AppState>;

/** Everything the HTTP layer needs; main.ts builds it, tests build it with their own parts. */
export interface AppDeps {
  logger: Logger;
  store: Store;
  /** Shared connection: readiness PING and whatever routes need from Redis. */
  redis: Redis;
  tokenVerifier: TokenVerifier;
  rateLimiter: TenantRateLimiter;
  /** Verifies tenants' audit chains for GET /api/v1/audit/verify, never hashing on the event loop. */
  auditVerifier: ChainVerifier;
  bodyLimitBytes: number;
  /** Largest JSON answer in UTF-8 bytes (RESPONSE_MAX_BYTES); default DEFAULT_RESPONSE_MAX_BYTES. */
  responseMaxBytes?: number;
  /** Honour X-Forwarded-* (behind a trusted proxy only). */
  trustProxy?: boolean;
  /** The clock of time-dependent rules (idempotency expiry); default the system clock. */
  now?: () => Date;
  /** Route modules registered after the built-in ones. */
  routes?: readonly RouteModule[];
  /** The process's metrics: requests are timed, and GET /metrics serves them. */
  metrics?: ServiceMetrics;
  /** The operators' queue dashboard (/admin/…), ahead of the API's own body parsing and routes. */
  queueBoard?: AppMiddleware;
}

/** Shared guards, so every route declares its protection in one line. */
export interface RouteKit {
  /** 400 unless X-Tenant-ID is present and well-formed; sets `ctx.state.tenantId`. */
  tenant: AppMiddleware;
  /** 401/403 unless a valid bearer token for that tenant is sent; sets `ctx.state.principal`. */
  bearer: AppMiddleware;
  /** 429 once the tenant's quota is spent; sets RateLimit headers. Needs `ctx.state.tenantId`. */
  rateLimit: AppMiddleware;
  /** The same limit charging `cost(ctx)` points per request (e.g. one per batch item), `unit` saying how in a 429 (default `one per evaluation`). */
  rateLimitBy(cost: (ctx: AppContext) => number, unit?: string): AppMiddleware;
  requireRole(role: Role): AppMiddleware;
  /** The REST chain: tenant header, bearer token, rate limit, role. */
  restGuard(role: Role): AppMiddleware;
  /** Replays the stored response of a repeated `Idempotency-Key` (after a guard: needs the tenant). */
  idempotent: AppMiddleware;
}

export type RouteModule = (router: AppRouter, deps: AppDeps, kit: RouteKit) => void;
