import type { Middleware } from 'koa';
import { AuthenticationError, AuthErrorCode, AuthorizationError } from './auth-errors.js';
import type { AuthState } from './principal.js';
import { roleSatisfies, type Role } from './roles.js';

/** Lets the request through when the authenticated principal holds `role` or a higher one. */
export function requireRole(role: Role): Middleware<AuthState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) {
      throw new AuthenticationError(AuthErrorCode.TOKEN_MISSING, 'this endpoint requires authentication');
    }
    if (!roleSatisfies(principal.role, role)) {
      const held = principal.role === null ? 'no known role' : `role \`${principal.role}\``;
      throw new AuthorizationError(AuthErrorCode.ROLE_INSUFFICIENT, `this endpoint requires role \`${role}\`; the caller has ${held}`);
    }
    await next();
  };
}
