import { isValidTenantId } from '../../kernel/index.js';
import { ApiError } from '../api-error.js';
import type { AppMiddleware } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';

/** Header lookup is case-insensitive, so this also serves the `X-Tenant-Id` spelling. */
export const TENANT_HEADER = 'X-Tenant-ID';

export function tenantHeader(): AppMiddleware {
  // Not async: a check that passes hands on the next middleware's promise, without a frame of its own.
  return (ctx, next) => {
    const value = ctx.get(TENANT_HEADER);
    if (value === '') {
      throw new ApiError(400, ApiErrorCode.TENANT_HEADER_MISSING, `missing ${TENANT_HEADER} header`);
    }
    if (!isValidTenantId(value)) {
      throw new ApiError(
        400,
        ApiErrorCode.TENANT_HEADER_INVALID,
        `${TENANT_HEADER} must be 1-64 characters of letters, digits, '_' or '-'`,
      );
    }
    ctx.state.tenantId = value;
    return next();
  };
}
