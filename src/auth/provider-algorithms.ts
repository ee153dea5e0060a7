/**
 * The signature algorithms an identity provider's tokens may use (JWT_ALGORITHMS): asymmetric
 * only. HS256 belongs to the development key ring, and `none` to nobody.
 */
export const PROVIDER_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/** What Keycloak, Entra ID, Okta, Auth0 and Dex sign with by default, and Ed25519. */
export const DEFAULT_PROVIDER_ALGORITHMS: readonly string[] = ['RS256', 'ES256', 'EdDSA'];

/** Parses a comma-separated list; throws naming an algorithm that is not allowed. */
export function parseProviderAlgorithms(text: string): string[] {
  const names = [...new Set(text.split(',').map((name) => name.trim()).filter((name) => name !== ''))];
  if (names.length === 0) throw new Error('names no algorithm');
  for (const name of names) {
    if (!(PROVIDER_ALGORITHMS as readonly string[]).includes(name)) {
      throw new Error(`\`${name.slice(0, 16)}\` is not allowed: use ${PROVIDER_ALGORITHMS.join(', ')} (HS256 tokens are verified with the development keys, JWT_KEYS)`);
    }
  }
  return names;
}
