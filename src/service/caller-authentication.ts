import {
  createJwksKeys,
  createTrustedGateway,
  DEFAULT_JWKS_MAX_BYTES,
  type IdentityProviderOptions,
  type TrustedGateway,
} from '../auth/index.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../logging/index.js';

/** The identity provider whose tokens the API accepts beside the development ones (JWT_JWKS_URL). */
export function identityProviderOf(config: Config, logger: Logger): IdentityProviderOptions | undefined {
  if (config.JWT_JWKS_URL === undefined || config.JWT_ISSUER === undefined || config.JWT_AUDIENCE === undefined) return undefined;
  const url = config.JWT_JWKS_URL;
  return {
    keys: createJwksKeys({
      url: new URL(url),
      cooldownSeconds: config.JWT_JWKS_COOLDOWN_SECONDS,
      timeoutMs: config.JWT_JWKS_TIMEOUT_MS,
      maxBytes: DEFAULT_JWKS_MAX_BYTES,
      onFetchFailure: (reason, keptKeys) =>
        logger.warn(
          { jwksUrl: url, reason },
          keptKeys ? 'identity provider key set not fetched; the keys fetched before stay in use' : 'identity provider key set not fetched; its tokens get 503 until it is',
        ),
    }),
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    algorithms: config.JWT_ALGORITHMS,
    claims: { subject: config.JWT_SUBJECT_CLAIM, tenant: config.JWT_TENANT_CLAIM, role: config.JWT_ROLE_CLAIM },
  };
}

/** The authenticating gateway whose header-only requests are trusted (TRUSTED_GATEWAY_CIDRS). */
export function trustedGatewayOf(config: Config): TrustedGateway | undefined {
  if (config.TRUSTED_GATEWAY_CIDRS === undefined) return undefined;
  return createTrustedGateway({ networks: config.TRUSTED_GATEWAY_CIDRS, secret: config.TRUSTED_GATEWAY_SECRET });
}
