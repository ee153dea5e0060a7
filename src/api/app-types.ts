import type Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { Principal } from '../auth/index.js';
import type { IdempotentResponse, KeyedRequest } from '../idempotency/index.js';
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

declare module 'koa' {
  interface Request {
    /** The request's JSON body as parsed by the jsonBody middleware; absent when it had none. */
    body?: unknown;
  }
}

export type AppContext = ParameterizedContext<AppState>;
export type AppMiddleware = Middleware<AppState>;
export type AppRouter = Router<AppState>;
