import { EvaluationErrorCode, type EvaluationCaller } from '../../evaluation/index.js';
import { EvaluationUnavailableError } from '../../jobs/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext } from '../app-types.js';

/** Who asks, as the guard left it: the tenant and the actor the audit chain records. */
export function callerOf(ctx: AppContext): EvaluationCaller {
  const principal = ctx.state.principal;
  if (!principal) throw new Error(`${ctx.path} reached without a principal`);
  return { tenantId: principal.tenantId, actorId: principal.subject };
}

/** The request was valid but nothing could evaluate it in time: 503, never a hang. */
export async function unlessUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EvaluationUnavailableError) {
      throw new ApiError(503, EvaluationErrorCode.UNAVAILABLE, `policy evaluation is unavailable: ${error.message}`);
    }
    throw error;
  }
}
