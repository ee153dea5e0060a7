import type Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { Principal } from '../auth/index.js';
import type { Logger } from '../logging/index.js';

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
}

export type AppContext = ParameterizedContext<AppState>;
export type AppMiddleware = Middleware<AppState>;
export type AppRouter = Router<AppState>;
