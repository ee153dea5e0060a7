import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, createJwtKeyRing, createTokenSigner, createTokenVerifier } from '../index.js';

const ring = createJwtKeyRing([{ kid: 'k1', secret: 's'.repeat(40) }], 'test');
const verifier = createTokenVerifier(ring);
const signer = createTokenSigner(ring);

async function failure(token: string): Promise<AuthenticationError> {
  try {
    await verifier.verify(token);
  } catch (error) {
    return error as AuthenticationError;
  }
  throw new Error('token was accepted');
}

describe('token signer and verifier', () => {
  it('round-trips subject, tenant and highest role', async () => {
    const token = await signer.sign({ subject: 'alice', tenantId: 'acme', roles: ['MEMBER', 'OWNER'], ttlSeconds: 60 });
    expect(await verifier.verify(token)).toEqual({ subject: 'alice', tenantId: 'acme', role: 'OWNER', authMethod: 'bearer' });
  });

  it('tolerates a few seconds of clock skew but not an expired token', async () => {
    const now = Date.now();
    const justExpired = await signer.sign({ subject: 'a', tenantId: 'acme', roles: ['ADMIN'], ttlSeconds: 60 }, new Date(now - 62_000));
    expect((await verifier.verify(justExpired)).role).toBe('ADMIN');
    const expired = await signer.sign({ subject: 'a', tenantId: 'acme', roles: ['ADMIN'], ttlSeconds: 60 }, new Date(now - 120_000));
    const error = await failure(expired);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.code).toBe('ERR_AUTH_TOKEN_EXPIRED');
  });

  it('refuses other algorithms', async () => {
    const unsigned = `${Buffer.from('{"alg":"none","kid":"k1"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ sub: 'a', tenant: 'acme', roles: ['OWNER'], exp: 4_000_000_000 }),
    ).toString('base64url')}.`;
    expect((await failure(unsigned)).code).toBe('ERR_AUTH_TOKEN_INVALID');
  });

  it.each([
    ['roles not an array', { tenant: 'acme', roles: 'ADMIN' }, 'roles'],
    ['tenant ill-formed', { tenant: 'ac me', roles: ['ADMIN'] }, 'tenant'],
  ])('refuses a token with %s', async (_label, claims, fragment) => {
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setSubject('alice')
      .setExpirationTime('1m')
      .sign(ring.signingKey.secret);
    const error = await failure(token);
    expect(error.code).toBe('ERR_AUTH_TOKEN_INVALID');
    expect(error.message).toContain(fragment);
  });

  it('refuses a token without a key id', async () => {
    const token = await new SignJWT({ tenant: 'acme', roles: ['ADMIN'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setExpirationTime('1m')
      .sign(ring.signingKey.secret);
    expect((await failure(token)).message).toContain('key id');
  });
});
