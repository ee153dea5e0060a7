import { SignJWT } from 'jose';
import type { JwtKeyRing } from './jwt-key-ring.js';
import type { Role } from './roles.js';

export interface TokenClaims {
  subject: string;
  tenantId: string;
  roles: readonly Role[];
  ttlSeconds: number;
}

export interface TokenSigner {
  sign(claims: TokenClaims, now?: Date): Promise<string>;
}

export function createTokenSigner(ring: JwtKeyRing): TokenSigner {
  return {
    async sign(claims, now = new Date()) {
      const issuedAt = Math.floor(now.getTime() / 1000);
      return new SignJWT({ tenant: claims.tenantId, roles: [...claims.roles] })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: ring.signingKey.kid })
        .setSubject(claims.subject)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + claims.ttlSeconds)
        .sign(ring.signingKey.secret);
    },
  };
}
