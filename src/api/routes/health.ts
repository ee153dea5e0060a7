import type { AppContext } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { errorEnvelope } from '../error-envelope.js';
import * as answers from '../openapi/response-schemas.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';

const CHECK_TIMEOUT_MS = 2000;

/** 'ok' or 'failed'; why goes to the log only, since readiness is open to anyone who can reach it. */
async function check(ctx: AppContext, name: string, probe: () => Promise<unknown>): Promise<'ok' | 'failed'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), timeout]);
    return 'ok';
  } catch (error) {
    ctx.state.log.warn({ check: name, err: error }, 'readiness check failed');
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}

/** What readiness asks: each backing service answers a ping. */
export interface HealthRouteDeps {
  store: { ping(): Promise<unknown> };
  redis: { ping(): Promise<unknown> };
}

/** Liveness answers while the event loop turns; readiness asks every backing service. */
export const HEALTH_ROUTES = declareRoutes<HealthRouteDeps>([
  {
    method: 'get',
    path: '/healthz',
    auth: 'none',
    doc: { tag: 'operations', summary: 'Liveness', success: { status: 200, schema: answers.health, description: 'the process runs' }, errors: {} },
    handle: (ctx) => {
      ctx.body = { status: 'ok' };
    },
  },
  {
    method: 'get',
    path: '/readyz',
    auth: 'none',
    doc: {
      tag: 'operations',
      summary: 'Readiness of the store and Redis',
      success: { status: 200, schema: answers.readiness, description: 'both answer' },
      errors: { 503: 'the store or Redis does not answer (ERR_HEALTH_NOT_READY)' },
    },
    handle: async (ctx, deps) => {
      const [store, redis] = await Promise.all([
        check(ctx, 'store', () => deps.store.ping()),
        check(ctx, 'redis', () => deps.redis.ping()),
      ]);
      const checks = { store, redis };
      const failed = Object.entries(checks).filter(([, outcome]) => outcome !== 'ok');
      if (failed.length === 0) {
        ctx.body = { status: 'ready', checks };
        return;
      }
      ctx.status = 503;
      ctx.body = {
        ...errorEnvelope(ApiErrorCode.HEALTH_NOT_READY, `not ready: ${failed.map(([name]) => name).join(', ')} failed`),
        checks,
      };
    },
  },
]);

export function createHealthRoutes(deps: HealthRouteDeps): RouteGroup {
  return bindRoutes(HEALTH_ROUTES, deps);
}
