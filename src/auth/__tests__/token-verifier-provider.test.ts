import { createLocalJWKSet, decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '../../errors/index.js';
import { AuthenticationError, createJwtKeyRing, createTokenSigner, createTokenVerifier, type TokenVerifier } from '../index.js';
import { JwksUnavailableError } from '../jwks-keys.js';

const ISSUER = 'https://id.example.test/realms/acme';
const AUDIENCE = 'policy-engine';
const ring = createJwtKeyRing([{ kid: 'dev', secret: 'd'.repeat(40) }], 'test');
const claims = { subject: 'sub', tenant: 'tenant', role: 'role' };

let verifier: TokenVerifier;
let sign: (payload: JWTPayload, header?: { alg?: string; kid?: string }) => Promise<string>;
let publicModulus: string;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' };
  publicModulus = jwk.n!;
  verifier = createTokenVerifier(ring, {
    identityProvider: { keys: createLocalJWKSet({ keys: [jwk] }), issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256', 'ES256'], claims },
  });
  sign = (payload, header = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const full = { iss: ISSUER, aud: AUDIENCE, sub: 'svc-1', iat: now, exp: now + 300, tenant: 'acme', role: ['member'], ...payload };
    return new SignJWT(full).setProtectedHeader({ alg: header.alg ?? 'RS256', kid: header.kid ?? 'idp-1' }).sign(privateKey);
  };
});

async function refusal(token: string, from: TokenVerifier = verifier): Promise<Error> {
  try {
    await from.verify(token);
  } catch (error) {
    return error as Error;
  }
  throw new Error('token was accepted');
}

describe('tokens of an identity provider', () => {
  it('are accepted with the mapped principal, beside the development tokens', async () => {
    const token = await sign({});
    expect(await verifier.verify(token)).toEqual({ subject: 'svc-1', tenantId: 'acme', role: 'MEMBER', authMethod: 'bearer', acceptedUntil: decodeJwt(token).exp! + 5 }); // the default clock tolerance
    const development = await createTokenSigner(ring).sign({ subject: 'dev', tenantId: 'acme', roles: ['ADMIN'], ttlSeconds: 60 });
    expect((await verifier.verify(development)).role).toBe('ADMIN');
  });

  it.each([
    ['another audience', { aud: 'someone-else' }, '`aud`'],
    ['another issuer', { iss: 'https://evil.example.test' }, '`iss`'],
    ['not yet valid', { nbf: Math.floor(Date.now() / 1000) + 600 }, '`nbf`'],
  ])('are refused with %s', async (_label, payload, fragment) => {
    const error = await refusal(await sign(payload));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).code).toBe('ERR_AUTH_TOKEN_INVALID');
    expect(error.message).toContain(fragment);
  });

  it('are refused once expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    const error = await refusal(await sign({ iat: now - 600, exp: now - 300 }));
    expect((error as AuthenticationError).code).toBe('ERR_AUTH_TOKEN_EXPIRED');
  });

  it('are held to the longest lifetime when they say when they were issued', async () => {
    const now = Math.floor(Date.now() / 1000);
    const error = await refusal(await sign({ iat: now, exp: now + 2 * 86_400 }));
    expect(error.message).toContain('exceeds the maximum');
  });

  it('never check HS256 against the provider\'s public key (algorithm confusion)', async () => {
    const forged = await new SignJWT({ tenant: 'acme', role: ['owner'] })
      .setProtectedHeader({ alg: 'HS256', kid: 'idp-1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('attacker')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(publicModulus));
    const error = await refusal(forged);
    expect((error as AuthenticationError).code).toBe('ERR_AUTH_TOKEN_INVALID');
    expect(error.message).toContain('key id');
  });

  it('never consult the provider\'s keys for an HS256 token, even one whose kid both know', async () => {
    const consulted: string[] = [];
    const shared = createJwtKeyRing([{ kid: 'idp-1', secret: 'p'.repeat(40) }], 'test');
    const spying = createTokenVerifier(shared, {
      identityProvider: {
        keys: async (header) => {
          consulted.push(String(header.alg));
          throw new Error('the provider\'s keys were consulted');
        },
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['RS256'],
        claims,
      },
    });
    const development = await createTokenSigner(shared).sign({ subject: 'dev', tenantId: 'acme', roles: ['ADMIN'], ttlSeconds: 60 });
    expect((await spying.verify(development)).role).toBe('ADMIN');
    const forged = await new SignJWT({ sub: 'x', tenant: 'acme', roles: ['OWNER'], iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 60 })
      .setProtectedHeader({ alg: 'HS256', kid: 'idp-1' })
      .sign(new TextEncoder().encode(publicModulus));
    expect((await refusal(forged, spying)).message).toContain('signature verification failed');
    expect(consulted).toEqual([]);
  });

  it('without iat may not expire later than the longest lifetime from now', async () => {
    const now = Math.floor(Date.now() / 1000);
    const error = await refusal(await sign({ iat: undefined, exp: now + 10 * 365 * 86_400 }));
    expect(error.message).toContain('expires more than the maximum lifetime');
    expect((await verifier.verify(await sign({ iat: undefined, exp: now + 600 }))).role).toBe('MEMBER');
  });

  it('may not take a subject the service gives its own actors', async () => {
    for (const sub of ['gateway:OWNER', 'signed:acme', 'system:anomaly-detect', 'workflow:0', 'Gateway:OWNER', ' signed:acme', '\u200bgateway:OWNER']) {
      expect((await refusal(await sign({ sub }))).message).toContain('may not start with');
    }
    const development = await createTokenSigner(ring).sign({ subject: 'system:anomaly-detect', tenantId: 'acme', roles: ['ADMIN'], ttlSeconds: 60 });
    expect((await refusal(development)).message).toContain('claim `sub` may not start with');
  });

  it('without a kid, against several keys of their kind, are refused saying so', async () => {
    const second = { ...(await exportJWK((await generateKeyPair('RS256', { extractable: true })).publicKey)), kid: 'idp-2', alg: 'RS256' };
    const first = { ...(await exportJWK((await generateKeyPair('RS256', { extractable: true })).publicKey)), kid: 'idp-3', alg: 'RS256' };
    const several = createTokenVerifier(ring, {
      identityProvider: { keys: createLocalJWKSet({ keys: [first, second] }), issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256'], claims },
    });
    const { privateKey } = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 's', tenant: 'acme', role: 'member', iat: now, exp: now + 60 }).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
    expect((await refusal(token, several)).message).toContain('names no key (`kid`)');
  });

  it('are the only ones accepted when development tokens are turned off', async () => {
    const providerOnly = createTokenVerifier(ring, {
      developmentTokens: false,
      identityProvider: { keys: createLocalJWKSet({ keys: [] }), issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256'], claims },
    });
    const development = await createTokenSigner(ring).sign({ subject: 'dev', tenantId: 'acme', roles: ['ADMIN'], ttlSeconds: 60 });
    expect((await refusal(development, providerOnly)).message).toContain('development tokens are turned off (JWT_DEVELOPMENT_TOKENS=false)');
  });

  it('with an algorithm not configured, or `none`, are refused naming the accepted ones', async () => {
    const { privateKey } = await generateKeyPair('PS256');
    const ps256 = await new SignJWT({}).setProtectedHeader({ alg: 'PS256', kid: 'idp-1' }).setExpirationTime('1m').sign(privateKey);
    expect((await refusal(ps256)).message).toContain('algorithm `PS256` is not accepted (accepted: HS256, RS256, ES256)');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"a","tenant":"acme","role":"owner","exp":4000000000}').toString('base64url')}.`;
    expect((await refusal(none)).message).toContain('algorithm `none` is not accepted');
  });

  it('are refused when no identity provider is configured', async () => {
    const developmentOnly = createTokenVerifier(ring);
    expect((await refusal(await sign({}), developmentOnly)).message).toContain('algorithm `RS256` is not accepted (accepted: HS256)');
  });

  it('get a 503 when the provider\'s keys cannot be fetched at all', async () => {
    const unreachable = createTokenVerifier(ring, {
      identityProvider: {
        keys: async () => {
          throw new JwksUnavailableError('the identity provider\'s key set (JWT_JWKS_URL) could not be fetched: it answered HTTP 502');
        },
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['RS256'],
        claims,
      },
    });
    const error = await refusal(await sign({}), unreachable);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).status).toBe(503);
  });

  it('cannot be configured with symmetric algorithms', () => {
    expect(() =>
      createTokenVerifier(ring, {
        identityProvider: { keys: createLocalJWKSet({ keys: [] }), issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'], claims },
      }),
    ).toThrow(RangeError);
  });
});
