import {
  AuthErrorCode,
  AuthorizationError,
  createBearerAuth,
  isRole,
  roleSatisfies,
  type Role,
  type SignedRequestContext,
  type TokenVerifier,
} from '../auth/index.js';

/**
 * The `allowBearer` hook of the signed-request middleware for the evaluation endpoints: a valid
 * bearer token of the tenant named by X-Tenant-Id, holding at least `minRole`, stands in for a
 * signature. X-User-Role is optional here (the token carries the role); when sent it must itself
 * be at least `minRole` and may not claim more than the token grants.
 */
export function createEvaluationBearerCheck(verifier: TokenVerifier) {
  const bearer = createBearerAuth(verifier);
  return async function allowBearer(ctx: SignedRequestContext, minRole: Role): Promise<boolean> {
    // The signed-request middleware has validated the header before consulting this hook.
    ctx.state.tenantId = ctx.req.headers['x-tenant-id'] as string;
    let verified = false;
    // Verifies the token (401) and that its tenant is the header's (403); sets ctx.state.principal.
    await bearer(ctx, async () => {
      verified = true;
    });
    const principal = ctx.state.principal;
    if (!verified || !principal) return false;
    if (!roleSatisfies(principal.role, minRole)) {
      const held = principal.role === null ? 'no known role' : `role \`${principal.role}\``;
      throw new AuthorizationError(AuthErrorCode.ROLE_INSUFFICIENT, `this endpoint requires role \`${minRole}\`; the token grants ${held}`);
    }
    const claimed = ctx.req.headers['x-user-role'];
    if (claimed !== undefined) {
      if (typeof claimed !== 'string' || !isRole(claimed) || !roleSatisfies(claimed, minRole)) {
        throw new AuthorizationError(
          AuthErrorCode.ROLE_INSUFFICIENT,
          `X-User-Role \`${String(claimed)}\` is not allowed here: this endpoint requires \`${minRole}\` or higher`,
        );
      }
      if (!roleSatisfies(principal.role, claimed)) {
        throw new AuthorizationError(
          AuthErrorCode.ROLE_INSUFFICIENT,
          `X-User-Role \`${claimed}\` claims more than the token grants (\`${principal.role}\`)`,
        );
      }
    }
    return true;
  };
}
