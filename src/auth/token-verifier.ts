import { errors, jwtVerify, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { isValidTenantId } from '../kernel/index.js';
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
  /**
   * Valid tokens remembered with their principal until they expire (default
   * DEFAULT_TOKEN_CACHE_SIZE; 0 turns the cache off). A client sends one token many times, and
   * checking its HMAC through WebCrypto costs more than the rest of the authentication together.
   */
  cacheSize?: number;
}

/** Enough for every client of a busy API process holding a token or two each. */
export const DEFAULT_TOKEN_CACHE_SIZE = 10_000;

interface VerifiedToken {
  principal: Principal;
  /** `exp` of the token, unix seconds. */
  expiresAt: number;
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
  const cacheSize = options.cacheSize ?? DEFAULT_TOKEN_CACHE_SIZE;
  if (!Number.isSafeInteger(cacheSize) || cacheSize < 0) {
    throw new RangeError(`token verifier: cacheSize must be a whole number ≥ 0, got ${String(cacheSize)}`);
  }
  // The same bytes verify the same way while the key ring is unchanged (it is fixed for the
  // process), so only expiry needs checking again. Refusals are not kept: they cost the sender.
  const verified = cacheSize > 0 ? new LRUCache<string, VerifiedToken>({ max: cacheSize }) : null;

  async function verifyInFull(token: string): Promise<VerifiedToken> {
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
    const principal: Principal = Object.freeze({ subject: sub, tenantId: tenant, role: highestRole(roles), authMethod: 'bearer' });
    return { principal, expiresAt: payload.exp! };
  }

  return {
    async verify(token) {
      const remembered = verified?.get(token);
      // jose's rule: a token has expired once `exp` <= now - tolerance.
      if (remembered !== undefined && remembered.expiresAt > nowSeconds() - clockTolerance) return remembered.principal;
      const fresh = await verifyInFull(token);
      verified?.set(token, fresh);
      return fresh.principal;
    },
  };
}
