import { ApiError } from '../api-error.js';
import type { AppContext } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';

export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';

/**
 * The sequence of the last event a reconnecting client has (`Last-Event-ID`, which it sends as the
 * stream's `id:` gave it), or undefined when it sent none. It wins over the route's query parameter.
 */
export function lastEventId(ctx: AppContext): number | undefined {
  const text = ctx.get(LAST_EVENT_ID_HEADER);
  if (text === '') return undefined;
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new ApiError(400, ApiErrorCode.REQUEST_HEADER_INVALID, `header \`${LAST_EVENT_ID_HEADER}\` must be a whole number of at least 0: the \`id\` of the last event received (got \`${text.slice(0, 32)}\`)`);
  }
  return value;
}
