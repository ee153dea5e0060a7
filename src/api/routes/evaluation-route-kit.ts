import { z } from 'zod';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../../errors/index.js';
import {
  createCallerGone,
  EvaluationErrorCode,
  EvaluationUnavailableError,
  RequesterGoneError,
  type CallerGone,
  type EvaluationCaller,
} from '../../evaluation/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext } from '../app-types.js';
import { booleanParam } from '../query-params.js';

/** Who asks, as the guard left it: the tenant and the actor the audit chain records. */
export function callerOf(ctx: AppContext): EvaluationCaller {
  const principal = ctx.state.principal;
  if (!principal) throw new Error(`${ctx.path} reached without a principal`);
  return { tenantId: principal.tenantId, actorId: principal.subject };
}

/** Goes when the client hangs up before its answer, so its evaluations are not run for nobody. */
export function requesterGone(ctx: AppContext): CallerGone {
  const gone = createCallerGone();
  // The client may have gone while the body was read or the rate limit checked: 'close' has fired
  // then. (The request stream itself counts as destroyed once its body is read, so ask the socket.)
  if (ctx.res.destroyed || ctx.req.socket.destroyed) {
    gone.markGone(new RequesterGoneError());
    return gone;
  }
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) gone.markGone(new RequesterGoneError());
  });
  return gone;
}

/** `?trace=true` asks for the decision trace; `false` or no parameter, none. */
export function traceParam(ctx: AppContext): boolean {
  return booleanParam(ctx, 'trace');
}

/** The request was valid but nothing could evaluate it in time: 503, never a hang, and no internals. */
export async function unlessUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EvaluationUnavailableError) {
      throw new ApiError(503, EvaluationErrorCode.UNAVAILABLE, `policy evaluation is unavailable: ${error.publicReason}; retry later`, {
        'Retry-After': String(DEFAULT_RETRY_AFTER_SECONDS),
      });
    }
    throw error;
  }
}

/** The document's `?trace`. */
export const traceQuery = z.object({ trace: z.enum(['true', 'false']).optional().describe('Return the decision trace') });

/** The document's 503 of a route that waits for an evaluation. */
export const EVALUATION_UNAVAILABLE = 'no worker answered or Redis is away (ERR_EVALUATION_UNAVAILABLE…); retry later';
