import type { Middleware } from 'koa';
import { AuthenticationError, AuthErrorCode, AuthorizationError } from './auth-errors.js';
import type { AuthState } from './principal.js';
import type { TokenVerifier } from './token-verifier.js';

const BEARER = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)[ ]*$/i;

/**
 * Authenticates `Authorization: Bearer <JWT>` and requires the token's tenant to equal the
 * tenant header, which an earlier middleware has validated into `ctx.state.tenantId`.
 */
export function createBearerAuth(verifier: TokenVerifier): Middleware<AuthState> {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    if (header === '') {
      throw new AuthenticationError(AuthErrorCode.TOKEN_MISSING, 'missing bearer token: send `Authorization: Bearer <token>`');
    }
    const match = BEARER.exec(header);
    if (!match) {
      throw new AuthenticationError(AuthErrorCode.TOKEN_INVALID, 'authorization header must be `Bearer <token>`');
    }
    const principal = await verifier.verify(match[1]!);
    const tenantId = ctx.state.tenantId;
    if (tenantId === undefined) throw new Error('bearer authentication runs before the tenant header is read');
    if (principal.tenantId !== tenantId) {
      throw new AuthorizationError(
        AuthErrorCode.TENANT_MISMATCH,
        `the token belongs to tenant \`${principal.tenantId}\`, not \`${tenantId}\``,
      );
    }
    ctx.state.principal = principal;
    await next();
  };
}
