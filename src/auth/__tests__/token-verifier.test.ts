import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, createJwtKeyRing, createTokenSigner, createTokenVerifier, DEFAULT_JWT_MAX_LIFETIME_SECONDS } from '../index.js';

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
    expect(await verifier.verify(token)).toEqual({ subject: 'alice', tenantId: 'acme', role: 'OWNER', authMethod: 'bearer', acceptedUntil: decodeJwt(token).exp! + 5 }); // the default clock tolerance
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
      .setIssuedAt()
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
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(ring.signingKey.secret);
    expect((await failure(token)).message).toContain('key id');
  });

  describe('lifetime', () => {
    const now = 1_800_000_000;
    const at = (seconds: number) => new Date(seconds * 1000);
    const clocked = createTokenVerifier(ring, { nowSeconds: () => now, maxLifetimeSeconds: 3600 });
    const claims = { subject: 'a', tenantId: 'acme', roles: ['MEMBER'] as const, ttlSeconds: 3600 };

    async function refusal(token: string): Promise<AuthenticationError> {
      try {
        await clocked.verify(token);
      } catch (error) {
        return error as AuthenticationError;
      }
      throw new Error('token was accepted');
    }

    it('accepts a token whose lifetime is exactly the maximum, at any point of it', async () => {
      const token = await signer.sign(claims, at(now - 3599));
      expect((await clocked.verify(token)).role).toBe('MEMBER');
      expect((await clocked.verify(await signer.sign(claims, at(now)))).role).toBe('MEMBER');
    });

    it('refuses a token without iat', async () => {
      const token = await new SignJWT({ tenant: 'acme', roles: ['MEMBER'] })
        .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
        .setSubject('a')
        .setExpirationTime(now + 60)
        .sign(ring.signingKey.secret);
      const error = await refusal(token);
      expect(error.code).toBe('ERR_AUTH_TOKEN_INVALID');
      expect(error.message).toContain('`iat`');
    });

    it('refuses a token that lives longer than the maximum, even a fresh one', async () => {
      const error = await refusal(await signer.sign({ ...claims, ttlSeconds: 3601 }, at(now)));
      expect(error.code).toBe('ERR_AUTH_TOKEN_INVALID');
      expect(error.message).toContain('lifetime (exp - iat) of 3601 s exceeds the maximum of 3600 s');
      const year3000 = await new SignJWT({ tenant: 'acme', roles: ['MEMBER'] })
        .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
        .setSubject('a')
        .setIssuedAt(now)
        .setExpirationTime(32_503_680_000)
        .sign(ring.signingKey.secret);
      expect((await refusal(year3000)).message).toContain('exceeds the maximum');
    });

    it('refuses iat in the future beyond the clock tolerance, tolerating 5 s', async () => {
      expect((await clocked.verify(await signer.sign(claims, at(now + 5)))).role).toBe('MEMBER');
      const error = await refusal(await signer.sign(claims, at(now + 6)));
      expect(error.code).toBe('ERR_AUTH_TOKEN_INVALID');
      expect(error.message).toContain('`iat` lies in the future');
    });

    it('defaults to 24 hours', async () => {
      const daily = createTokenVerifier(ring, { nowSeconds: () => now });
      expect(DEFAULT_JWT_MAX_LIFETIME_SECONDS).toBe(86_400);
      expect((await daily.verify(await signer.sign({ ...claims, ttlSeconds: 86_400 }, at(now)))).role).toBe('MEMBER');
      await expect(daily.verify(await signer.sign({ ...claims, ttlSeconds: 86_401 }, at(now)))).rejects.toThrow(/exceeds the maximum of 86400 s/);
      expect(() => createTokenVerifier(ring, { maxLifetimeSeconds: 0 })).toThrow(/maxLifetimeSeconds/);
    });
  });

  describe('verified-token cache', () => {
    let now = 1_800_000_000;
    const at = (seconds: number) => new Date(seconds * 1000);
    const claims = { subject: 'a', tenantId: 'acme', roles: ['MEMBER'] as const, ttlSeconds: 60 };

    it('answers a remembered token until it expires, then refuses it as expired', async () => {
      now = 1_800_000_000;
      const cached = createTokenVerifier(ring, { nowSeconds: () => now });
      const token = await signer.sign(claims, at(now));
      expect((await cached.verify(token)).role).toBe('MEMBER');
      now += 64; // exp + 4 s: within the 5 s tolerance
      expect((await cached.verify(token)).role).toBe('MEMBER');
      now += 1; // exp + 5 s: expired by jose's rule
      await expect(cached.verify(token)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_EXPIRED' });
    });

    it('refuses any changed byte of a remembered token', async () => {
      now = 1_800_000_000;
      const cached = createTokenVerifier(ring, { nowSeconds: () => now });
      const token = await signer.sign(claims, at(now));
      await cached.verify(token);
      const [header, payload, signature] = token.split('.') as [string, string, string];
      const elevated = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), roles: ['OWNER'] })).toString('base64url');
      await expect(cached.verify(`${header}.${elevated}.${signature}`)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID' });
      const flipped = `${signature.slice(0, -2)}${signature.at(-2) === 'A' ? 'B' : 'A'}${signature.at(-1)}`;
      await expect(cached.verify(`${header}.${payload}.${flipped}`)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID' });
      expect((await cached.verify(token)).role).toBe('MEMBER');
    });

    it('refuses a negative cacheSize; 0 turns the cache off', async () => {
      expect(() => createTokenVerifier(ring, { cacheSize: -1 })).toThrow(/cacheSize/);
      // A key ring of its own, whose key is withdrawn after the first check: only a remembered token still passes.
      const own = createJwtKeyRing([{ kid: 'k9', secret: 'k'.repeat(40) }], 'test');
      const token = await createTokenSigner(own).sign({ subject: 'a', tenantId: 'acme', roles: ['MEMBER'], ttlSeconds: 60 });
      const cached = createTokenVerifier(own);
      const uncached = createTokenVerifier(own, { cacheSize: 0 });
      await cached.verify(token);
      await uncached.verify(token);
      (own.keys as Map<string, unknown>).delete('k9');
      expect((await cached.verify(token)).role).toBe('MEMBER');
      await expect(uncached.verify(token)).rejects.toMatchObject({ code: 'ERR_AUTH_TOKEN_INVALID' });
    });
  });
});
