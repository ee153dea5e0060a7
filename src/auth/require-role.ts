import type { Middleware } from 'koa';
import { AuthenticationError, AuthErrorCode, AuthorizationError } from './auth-errors.js';
import type { AuthState } from './principal.js';
import { roleSatisfies, type Role } from './roles.js';

/** Lets the request through when the authenticated principal holds `role` or a higher one. */
export function requireRole(role: Role): Middleware<AuthState> {
  // Not async: a check that passes hands on the next middleware's promise, without a frame of its own.
  return (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) {
      throw new AuthenticationError(AuthErrorCode.TOKEN_MISSING, 'this endpoint requires authentication');
    }
    if (!roleSatisfies(principal.role, role)) {
      const held = principal.role === null ? 'no known role' : `role \`${principal.role}\``;
      throw new AuthorizationError(AuthErrorCode.ROLE_INSUFFICIENT, `this endpoint requires role \`${role}\`; the caller has ${held}`);
    }
    return next();
  };
}
