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
  /** Allowed clock skew between the issuer and this process (`exp`, `iat`); default 5 s. */
  clockToleranceSeconds?: number;
  /**
   * Longest lifetime a token may claim, `exp - iat` in seconds (JWT_MAX_LIFETIME_SECONDS); longer
   * ones are refused however recently they were issued. Default DEFAULT_JWT_MAX_LIFETIME_SECONDS.
   */
  maxLifetimeSeconds?: number;
  /** Unix seconds; tests move the clock with it. */
  nowSeconds?: () => number;
}

/** 24 hours: a leaked token stays usable for a day at most. */
export const DEFAULT_JWT_MAX_LIFETIME_SECONDS = 86_400;

class UnknownKeyError extends Error {}

function invalid(reason: string): AuthenticationError {
  return new AuthenticationError(AuthErrorCode.TOKEN_INVALID, `bearer token is invalid: ${reason}`);
}

export function createTokenVerifier(ring: JwtKeyRing, options: TokenVerifierOptions = {}): TokenVerifier {
  const clockTolerance = options.clockToleranceSeconds ?? 5;
  const maxLifetime = options.maxLifetimeSeconds ?? DEFAULT_JWT_MAX_LIFETIME_SECONDS;
  if (!Number.isSafeInteger(maxLifetime) || maxLifetime < 1) {
    throw new RangeError(`token verifier: maxLifetimeSeconds must be a positive whole number, got ${String(maxLifetime)}`);
  }
  const nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
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
          {
            algorithms: ['HS256'],
            requiredClaims: ['exp', 'iat', 'sub'],
            clockTolerance,
            currentDate: new Date(nowSeconds() * 1000),
          },
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
      // jose has checked that both are numbers and that `exp` has not passed.
      const issuedAt = payload.iat!;
      const lifetime = payload.exp! - issuedAt;
      if (issuedAt > nowSeconds() + clockTolerance) {
        throw invalid(`claim \`iat\` lies in the future (issued at ${issuedAt}, server time ${nowSeconds()}): check the issuer's clock`);
      }
      if (lifetime > maxLifetime) {
        throw invalid(`its lifetime (exp - iat) of ${lifetime} s exceeds the maximum of ${maxLifetime} s: request a shorter-lived token`);
      }
      const { sub, tenant, roles } = payload as JWTPayload & { tenant?: unknown; roles?: unknown };
      if (typeof sub !== 'string' || sub.length === 0) throw invalid('claim `sub` must be a non-empty string');
      if (typeof tenant !== 'string' || !isValidTenantId(tenant)) throw invalid('claim `tenant` must be a valid tenant id');
      if (!Array.isArray(roles)) throw invalid('claim `roles` must be an array of role names');
      return { subject: sub, tenantId: tenant, role: highestRole(roles), authMethod: 'bearer' };
    },
  };
}
