import type { z } from 'zod';
import type { NonceGuard, Role } from '../auth/index.js';
import type { TenantRepository } from '../tenants/index.js';
import type { AppContext, AppMiddleware } from './app-types.js';

/**
 * How a route authenticates: `bearer` (REST: token and tenant header), `signed-or-bearer`
 * (evaluation and registry: HMAC signature, or a token instead), `signed` (GraphQL), `none`.
 */
export type Authentication = 'none' | 'bearer' | 'signed-or-bearer' | 'signed';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What the OpenAPI document says of an operation besides what the route declares for the router. */
export interface OperationText {
  tag: string;
  summary: string;
  description?: string;
  success: {
    status: 200 | 201 | 202 | 204;
    schema?: z.ZodType;
    description: string;
    contentType?: string;
    /** Headers the answer carries, by name: what each says. */
    headers?: Readonly<Record<string, string>>;
  };
  /** Error statuses of the route itself, besides those its authentication implies. */
  errors: Partial<Record<400 | 403 | 404 | 405 | 409 | 413 | 422 | 429 | 500 | 503, string>>;
  /** The body of the route's refusals when it is not the error envelope alone (a defect's 500 always is). */
  errorSchema?: z.ZodType;
}

/** A route as both the router and the OpenAPI document read it; its handler is bound to its group's dependencies. */
export interface RouteSpec {
  method: HttpMethod;
  /** OpenAPI form: `/api/v1/policies/{id}` (the router gets `:id`). */
  path: string;
  auth: Authentication;
  /** The least role the caller must hold. */
  role?: Role;
  pathParams?: Record<string, string>;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Takes `Idempotency-Key` (repeats replay the stored answer). */
  idempotent?: boolean;
  /** Absent for pages that are no API operation (the console, the API reference). */
  doc?: OperationText;
}

/** One route: what it is, how it is guarded and what answers it, given `Deps`. */
export interface RouteDeclaration<Deps> extends RouteSpec {
  /** Rate-limit points of one request (default one), `unit` saying how a 429 counts them. */
  cost?: { points: (ctx: AppContext, deps: Deps) => number; unit?: string };
  /** Reads the request once the caller is authenticated, before the rate limit charges for it. */
  read?: (ctx: AppContext, deps: Deps) => Promise<void>;
  /** Runs around the whole route, its guard included (GraphQL answers refusals in its own form). */
  around?: AppMiddleware;
  handle: (ctx: AppContext, deps: Deps) => unknown;
}

/** Where signed requests find the tenant's signing secrets, and how fresh they must be. */
export interface SignedRequestOptions {
  tenants: Pick<TenantRepository, 'activeSecrets'>;
  nonceGuard: NonceGuard;
  /** ± seconds a signed request's timestamp may differ from server time; default 300. */
  signatureWindowSeconds?: number;
  /** Unix seconds; tests move the clock with it. */
  nowSeconds?: () => number;
}

/** A declared route with its dependencies bound, as createApp registers it. */
export interface BoundRoute extends RouteSpec {
  cost?: { points: (ctx: AppContext) => number; unit?: string };
  read?: (ctx: AppContext) => Promise<void>;
  around?: AppMiddleware;
  handle: (ctx: AppContext) => unknown;
  /** Set when `auth` is `signed` or `signed-or-bearer`. */
  signing?: SignedRequestOptions;
}

/** Routes created with what they need: one group per concern, registered in order. */
export interface RouteGroup {
  readonly routes: readonly BoundRoute[];
}

/** States a group's routes, type-checked against the dependencies they will be bound to. */
export function declareRoutes<Deps>(routes: readonly RouteDeclaration<Deps>[]): readonly RouteDeclaration<Deps>[] {
  return routes;
}

/** The group of `routes` answering with `deps`; signed routes check signatures as `signing` says. */
export function bindRoutes<Deps>(routes: readonly RouteDeclaration<Deps>[], deps: Deps, signing?: SignedRequestOptions): RouteGroup {
  return {
    routes: routes.map(({ cost, read, handle, ...spec }) => {
      const signed = spec.auth === 'signed' || spec.auth === 'signed-or-bearer';
      if (signed && signing === undefined) {
        throw new Error(`${spec.method.toUpperCase()} ${spec.path} takes signed requests: bind it with its signing options`);
      }
      return {
        ...spec,
        ...(cost ? { cost: { ...cost, points: (ctx: AppContext) => cost.points(ctx, deps) } } : {}),
        ...(read ? { read: (ctx: AppContext) => read(ctx, deps) } : {}),
        handle: (ctx: AppContext) => handle(ctx, deps),
        ...(signed ? { signing } : {}),
      };
    }),
  };
}
