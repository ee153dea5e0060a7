export { ROLES, isRole, roleRank, highestRole, roleSatisfies, type Role } from './roles.js';
export type { Principal, AuthState } from './principal.js';
export { AuthenticationError, AuthorizationError, AuthErrorCode } from './auth-errors.js';
export {
  createJwtKeyRing,
  loadJwtKeyRing,
  JWT_KEY_FILE_NAME,
  type JwtKey,
  type JwtKeyRing,
  type JwtKeySource,
} from './jwt-key-ring.js';
export { parseJwtKeysSpec, type JwtKeySpec } from './jwt-keys-spec.js';
export { createTokenSigner, type TokenClaims, type TokenSigner } from './token-signer.js';
export {
  createTokenVerifier,
  DEFAULT_JWT_MAX_LIFETIME_SECONDS,
  type IdentityProviderOptions,
  type TokenVerifier,
  type TokenVerifierOptions,
} from './token-verifier.js';
export { createJwksKeys, DEFAULT_JWKS_MAX_BYTES, type JwksKeysOptions } from './jwks-keys.js';
export { SERVICE_ACTOR_REFUSAL, type IdentityClaimNames } from './identity-claims.js';
export { createTrustedGateway, GATEWAY_SECRET_HEADER, parseGatewayNetworks, type GatewayNetwork, type TrustedGateway } from './trusted-gateway.js';
export { createBearerAuth } from './bearer-auth.js';
export { requireRole } from './require-role.js';
export {
  createSignedRequestAuth,
  keepRawBody,
  readRawBody,
  SignedRequestError,
  SignedRequestErrorCode,
  type SignedRequestAuthOptions,
  type SignedRequestContext,
  type SignedRequestState,
} from './signed-request.middleware.js';
export { createTurnBatch } from './turn-batch.js';
export { createNonceGuard, minimumNonceTtlSeconds, NONCE_TTL_MARGIN_SECONDS, type NonceGuard, type NonceGuardOptions } from './nonce-guard.js';
