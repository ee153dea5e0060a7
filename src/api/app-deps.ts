import type { TokenVerifier, TrustedGateway } from '../auth/index.js';
import type { IdempotencyRepository } from '../idempotency/index.js';
import type { Logger } from '../logging/index.js';
import type { ServiceMetrics } from '../metrics/index.js';
import type { AppMiddleware } from './app-types.js';
import type { RouteGroup } from './route-declaration.js';
import type { TenantRateLimiter } from './tenant-rate-limiter.js';

/** What the HTTP application is made of; the API part (src/service/) builds it, tests build it with their own parts. */
export interface AppDeps {
  logger: Logger;
  /** Checks the bearer tokens of `bearer` routes (and of `signed-or-bearer` routes sent one instead). */
  tokenVerifier: TokenVerifier;
  /** Takes header-only requests from an authenticating gateway on the routes that take signed ones. */
  gateway?: TrustedGateway | undefined;
  rateLimiter: TenantRateLimiter;
  /** Where idempotent routes keep the answers a repeated `Idempotency-Key` replays. */
  idempotency: IdempotencyRepository;
  bodyLimitBytes: number;
  /** Largest JSON answer in UTF-8 bytes (RESPONSE_MAX_BYTES); default DEFAULT_RESPONSE_MAX_BYTES. */
  responseMaxBytes?: number;
  /** Honour X-Forwarded-* (behind a trusted proxy only). */
  trustProxy?: boolean;
  /** The clock of time-dependent rules (idempotency expiry); default the system clock. */
  now?: () => Date;
  /** Every route of the app, group by group, registered in this order. */
  routes: readonly RouteGroup[];
  /** The process's metrics: requests are timed (GET /metrics is a route group of its own). */
  metrics?: ServiceMetrics;
  /** The operators' queue dashboard (/admin/…), ahead of the API's own body parsing and routes. */
  queueBoard?: AppMiddleware;
}
