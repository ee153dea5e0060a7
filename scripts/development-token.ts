import { createTokenSigner, loadJwtKeyRing, type JwtKeyRing, type Role } from '../src/auth/index.js';
import type { Config } from '../src/config/index.js';
import { CliError } from './cli-io.js';

export interface DevelopmentTokenClaims {
  subject: string;
  tenantId: string;
  role: Role;
  ttlSeconds: number;
}

/**
 * A bearer token signed with the configured key (JWT_KEYS, else the key file under DATA_DIR,
 * created on first use), and the key ring it was signed with; a CliError when the service is
 * configured to refuse development tokens.
 */
export async function mintDevelopmentToken(config: Config, claims: DevelopmentTokenClaims): Promise<{ token: string; ring: JwtKeyRing }> {
  if (!config.JWT_DEVELOPMENT_TOKENS) {
    throw new CliError('the service is configured to refuse development tokens (JWT_DEVELOPMENT_TOKENS=false): use a token of its identity provider');
  }
  const ring = await loadJwtKeyRing({ jwtKeys: config.JWT_KEYS, dataDir: config.DATA_DIR });
  const token = await createTokenSigner(ring).sign({ subject: claims.subject, tenantId: claims.tenantId, roles: [claims.role], ttlSeconds: claims.ttlSeconds });
  return { token, ring };
}
