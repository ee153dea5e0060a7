import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import { DependencyUnavailableError } from '../errors/index.js';
import { isValidTenantId, looksLikeServiceActor } from '../kernel/index.js';
import { AuthenticationError, AuthErrorCode } from './auth-errors.js';
import { IdentityClaimError, principalFromIdentityClaims, SERVICE_ACTOR_REFUSAL, type IdentityClaimNames } from './identity-claims.js';
import { JwksUnavailableError } from './jwks-keys.js';
import { PROVIDER_ALGORITHMS } from './provider-algorithms.js';
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
  /** Also accept an identity provider's tokens (JWT_JWKS_URL); without it only HS256 ones. */
  identityProvider?: IdentityProviderOptions | undefined;
  /** Accept the key ring's HS256 tokens (JWT_DEVELOPMENT_TOKENS); default true. */
  developmentTokens?: boolean;
  /**
   * Valid tokens remembered with their principal until they expire (default
   * DEFAULT_TOKEN_CACHE_SIZE; 0 turns the cache off). A client sends one token many times, and
   * checking its HMAC through WebCrypto costs more than the rest of the authentication together.
   */
  cacheSize?: number;
}

/** Enough for every client of a busy API process holding a token or two each. */
export const DEFAULT_TOKEN_CACHE_SIZE = 10_000;
/** The cache's memory at most: 10,000 tokens of 1.6 KB, or fewer larger ones. */
const TOKEN_CACHE_MAX_BYTES = 16 * 1024 * 1024;
/** The principal and the entry's bookkeeping beside the token's own characters. */
const TOKEN_ENTRY_OVERHEAD_BYTES = 256;

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

/** Tokens of an identity provider (JWT_JWKS_URL): verified with its published keys. */
export interface IdentityProviderOptions {
  keys: JWTVerifyGetKey;
  /** JWT_ISSUER and JWT_AUDIENCE: both must match. */
  issuer: string;
  audience: string;
  /** JWT_ALGORITHMS: asymmetric only; HS256 always means the development key ring. */
  algorithms: readonly string[];
  claims: IdentityClaimNames;
}

/** What the key ring's tokens carry; `npm run token` mints them. */
const DEVELOPMENT_ALGORITHM = 'HS256';

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
  const provider = options.identityProvider;
  if (provider?.algorithms.some((alg) => !(PROVIDER_ALGORITHMS as readonly string[]).includes(alg))) {
    throw new RangeError(`token verifier: an identity provider's algorithms are among ${PROVIDER_ALGORITHMS.join(', ')}; HS256 is the development key ring's`);
  }
  const developmentTokens = options.developmentTokens ?? true;
  const accepted = [...(developmentTokens ? [DEVELOPMENT_ALGORITHM] : []), ...(provider?.algorithms ?? [])].join(', ');
  // The same bytes verify the same way while the keys are unchanged, so only expiry needs checking
  // again (a provider's key withdrawn later does not end tokens already seen: their `exp` does).
  // Refusals are not kept: they cost the sender. Bounded in bytes as well as in entries: a
  // provider's tokens can be large, and callers choose their size.
  const verified =
    cacheSize > 0
      ? new LRUCache<string, VerifiedToken>({ max: cacheSize, maxSize: TOKEN_CACHE_MAX_BYTES, sizeCalculation: (_value, token) => token.length + TOKEN_ENTRY_OVERHEAD_BYTES })
      : null;

  function refusal(error: unknown): Error {
    if (error instanceof AuthenticationError) return error;
    if (error instanceof JwksUnavailableError) {
      return new DependencyUnavailableError('the identity provider (its key set at JWT_JWKS_URL)', { retryAfterSeconds: error.retryAfterSeconds, cause: error });
    }
    if (error instanceof errors.JWTExpired) {
      return new AuthenticationError(AuthErrorCode.TOKEN_EXPIRED, 'bearer token has expired: request a new one');
    }
    if (error instanceof UnknownKeyError) {
      return invalid(
        'it is not signed with a known key id: was it minted with another DATA_DIR or JWT_KEYS than this service uses? ' +
          'Mint tokens with the settings the service runs with (the same .env or environment)',
      );
    }
    if (error instanceof errors.JWKSNoMatchingKey) return invalid('it is not signed with a key the identity provider publishes (unknown `kid`)');
    if (error instanceof errors.JWKSMultipleMatchingKeys) {
      return invalid('it names no key (`kid`) and the identity provider publishes several keys that could have signed it');
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) return invalid('signature verification failed');
    if (error instanceof errors.JWTClaimValidationFailed) return invalid(`claim \`${error.claim}\` ${error.reason}`);
    if (error instanceof IdentityClaimError) return invalid(error.message);
    return invalid('it is not a well-formed, signed JWT');
  }

  /**
   * The checks every token gets after its signature: `iat` not ahead, lifetime not too long. A
   * token without `iat` (a provider's may lack it) may not expire later than the longest lifetime
   * from now: it is remembered until `exp`, so `exp` alone must be bounded.
   */
  function checkTimes(payload: JWTPayload): void {
    const issuedAt = payload.iat;
    if (issuedAt === undefined) {
      if (payload.exp! - nowSeconds() > maxLifetime + clockTolerance) {
        throw invalid(`it expires more than the maximum lifetime of ${maxLifetime} s from now and says nothing of when it was issued (\`iat\`)`);
      }
      return;
    }
    if (issuedAt > nowSeconds() + clockTolerance) {
      throw invalid(`claim \`iat\` lies in the future (issued at ${issuedAt}, server time ${nowSeconds()}): check the issuer's clock`);
    }
    const lifetime = payload.exp! - issuedAt;
    if (lifetime > maxLifetime) {
      throw invalid(`its lifetime (exp - iat) of ${lifetime} s exceeds the maximum of ${maxLifetime} s: request a shorter-lived token`);
    }
  }

  async function verifyDevelopmentToken(token: string): Promise<VerifiedToken> {
    const { payload } = await jwtVerify(
      token,
      (header) => {
        const key = header.kid === undefined ? undefined : ring.keys.get(header.kid);
        if (!key) throw new UnknownKeyError();
        return key.secret;
      },
      {
        algorithms: [DEVELOPMENT_ALGORITHM],
        requiredClaims: ['exp', 'iat', 'sub'],
        clockTolerance,
        currentDate: new Date(nowSeconds() * 1000),
      },
    );
    checkTimes(payload);
    const { sub, tenant, roles } = payload as JWTPayload & { tenant?: unknown; roles?: unknown };
    if (typeof sub !== 'string' || sub.length === 0) throw invalid('claim `sub` must be a non-empty string');
    if (looksLikeServiceActor(sub)) throw invalid(`claim \`sub\` ${SERVICE_ACTOR_REFUSAL}`);
    if (typeof tenant !== 'string' || !isValidTenantId(tenant)) throw invalid('claim `tenant` must be a valid tenant id');
    if (!Array.isArray(roles)) throw invalid('claim `roles` must be an array of role names');
    const principal: Principal = Object.freeze({ subject: sub, tenantId: tenant, role: highestRole(roles), authMethod: 'bearer', acceptedUntil: payload.exp! + clockTolerance });
    return { principal, expiresAt: payload.exp! };
  }

  async function verifyProviderToken(token: string, idp: IdentityProviderOptions): Promise<VerifiedToken> {
    const { payload } = await jwtVerify(token, idp.keys, {
      algorithms: [...idp.algorithms],
      issuer: idp.issuer,
      audience: idp.audience,
      requiredClaims: ['exp'],
      clockTolerance,
      currentDate: new Date(nowSeconds() * 1000),
    });
    checkTimes(payload);
    return { principal: Object.freeze({ ...principalFromIdentityClaims(payload, idp.claims), acceptedUntil: payload.exp! + clockTolerance }), expiresAt: payload.exp! };
  }

  async function verifyInFull(token: string): Promise<VerifiedToken> {
    try {
      // The algorithm picks the keys, and each kind of key is used with its own algorithms only:
      // a token that names HS256 is never checked against a provider's public keys.
      const { alg } = decodeProtectedHeader(token);
      if (alg === DEVELOPMENT_ALGORITHM && developmentTokens) return await verifyDevelopmentToken(token);
      if (provider !== undefined && typeof alg === 'string' && provider.algorithms.includes(alg)) {
        return await verifyProviderToken(token, provider);
      }
      const off = alg === DEVELOPMENT_ALGORITHM ? ': development tokens are turned off (JWT_DEVELOPMENT_TOKENS=false)' : '';
      throw invalid(`its algorithm \`${String(alg).slice(0, 16)}\` is not accepted (accepted: ${accepted || 'none'})${off}`);
    } catch (error) {
      throw refusal(error);
    }
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
