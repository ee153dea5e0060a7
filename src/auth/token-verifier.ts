import { errors, jwtVerify, type JWTPayload } from 'jose';
import { isValidTenantId } from '../tenants/index.js';
import { AuthenticationError, AuthErrorCode } from './auth-errors.js';
import type { JwtKeyRing } from './jwt-key-ring.js';
import type { Principal } from './principal.js';
import { highestRole } from './roles.js';

export interface TokenVerifier {
  /** Resolves the principal of a valid token; throws AuthenticationError (401) otherwise. */
  verify(token: string): Promise<Principal>;
}

export interface TokenVerifierOptions {
  /** Allowed clock skew between the issuer and this process. */
  clockToleranceSeconds?: number;
}

class UnknownKeyError extends Error {}

function invalid(reason: string): AuthenticationError {
  return new AuthenticationError(AuthErrorCode.TOKEN_INVALID, `bearer token is invalid: ${reason}`);
}

export function createTokenVerifier(ring: JwtKeyRing, options: TokenVerifierOptions = {}): TokenVerifier {
  const clockTolerance = options.clockToleranceSeconds ?? 5;
  return {
    async verify(token) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(
          token,
          (header) => {
            const key = header.kid === undefined ? undefined : ring.keys.get(header.kid);
            if (!key) throw new UnknownKeyError();
            return key.secret;
          },
          { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'], clockTolerance },
        ));
      } catch (error) {
        if (error instanceof errors.JWTExpired) {
          throw new AuthenticationError(AuthErrorCode.TOKEN_EXPIRED, 'bearer token has expired: request a new one');
        }
        if (error instanceof UnknownKeyError) throw invalid('it is not signed with a known key id');
        if (error instanceof errors.JWSSignatureVerificationFailed) throw invalid('signature verification failed');
        if (error instanceof errors.JWTClaimValidationFailed) throw invalid(`claim \`${error.claim}\` ${error.reason}`);
        throw invalid('it is not a well-formed HS256 JWT');
      }
      const { sub, tenant, roles } = payload as JWTPayload & { tenant?: unknown; roles?: unknown };
      if (typeof sub !== 'string' || sub.length === 0) throw invalid('claim `sub` must be a non-empty string');
      if (typeof tenant !== 'string' || !isValidTenantId(tenant)) throw invalid('claim `tenant` must be a valid tenant id');
      if (!Array.isArray(roles)) throw invalid('claim `roles` must be an array of role names');
      return { subject: sub, tenantId: tenant, role: highestRole(roles), authMethod: 'bearer' };
    },
  };
}
