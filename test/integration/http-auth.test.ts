import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtKeyRing, type Role } from '../../src/auth/index.js';
import { envelope, randomKeyRing, startHarness, type Harness } from './http-support/http-harness.js';

describe('bearer authentication and roles over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const call = (authorization: string | undefined, tenant = 'acme') =>
    h.request('/api/v1/audit', { headers: { ...(authorization ? { authorization } : {}), 'x-tenant-id': tenant } });

  describe('401', () => {
    it('without a token, naming the scheme', async () => {
      const response = await call(undefined);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect((await envelope(response)).code).toBe('ERR_AUTH_TOKEN_MISSING');
    });

    it('with another scheme', async () => {
      const response = await call('Basic YWxpY2U6c2VjcmV0');
      expect(response.status).toBe(401);
      expect((await envelope(response)).code).toBe('ERR_AUTH_TOKEN_INVALID');
    });

    it('with garbage in place of a token', async () => {
      const response = await call('Bearer not.a.jwt');
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect((await envelope(response)).code).toBe('ERR_AUTH_TOKEN_INVALID');
    });

    it('with a token signed by an unknown key id', async () => {
      const response = await call(`Bearer ${await h.token({ ring: randomKeyRing(['stranger']) })}`);
      expect(response.status).toBe(401);
      expect((await envelope(response)).error).toContain('key id');
    });

    it('with a known key id but the wrong secret', async () => {
      const forged = createJwtKeyRing([{ kid: 'current', secret: 'f'.repeat(43) }], 'forged');
      const response = await call(`Bearer ${await h.token({ ring: forged })}`);
      expect(response.status).toBe(401);
      expect((await envelope(response)).error).toContain('signature');
    });

    it('with a tampered payload', async () => {
      const [header, , signature] = (await h.token({ roles: ['VIEWER'] })).split('.');
      const payload = Buffer.from(JSON.stringify({ sub: 'alice', tenant: 'acme', roles: ['OWNER'], exp: 4_000_000_000 })).toString('base64url');
      const response = await call(`Bearer ${header}.${payload}.${signature}`);
      expect(response.status).toBe(401);
    });

    it('with an expired token', async () => {
      const token = await h.token({ ttlSeconds: 60, now: new Date(Date.now() - 3600_000) });
      const response = await call(`Bearer ${token}`);
      expect(response.status).toBe(401);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_AUTH_TOKEN_EXPIRED');
      expect(body.error).toContain('expired');
    });

    it('with a token lacking iat, naming the claim', async () => {
      const key = h.keyRing.signingKey;
      const noIat = await new SignJWT({ tenant: 'acme', roles: ['ADMIN'] })
        .setProtectedHeader({ alg: 'HS256', kid: key.kid })
        .setSubject('alice')
        .setExpirationTime('5m')
        .sign(key.secret);
      const response = await call(`Bearer ${noIat}`);
      expect(response.status).toBe(401);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_AUTH_TOKEN_INVALID');
      expect(body.error).toContain('`iat`');
    });

    it('with a lifetime beyond the maximum, however fresh (exp in the year 3000)', async () => {
      const key = h.keyRing.signingKey;
      const now = Math.floor(Date.now() / 1000);
      const year3000 = await new SignJWT({ tenant: 'acme', roles: ['ADMIN'] })
        .setProtectedHeader({ alg: 'HS256', kid: key.kid })
        .setSubject('alice')
        .setIssuedAt(now)
        .setExpirationTime(32_503_680_000)
        .sign(key.secret);
      const oneDayAndASecond = await h.token({ ttlSeconds: 86_401 });
      for (const token of [year3000, oneDayAndASecond]) {
        const response = await call(`Bearer ${token}`);
        expect(response.status).toBe(401);
        const body = await envelope(response);
        expect(body.code).toBe('ERR_AUTH_TOKEN_INVALID');
        expect(body.error).toContain('exceeds the maximum of 86400 s');
      }
      expect((await call(`Bearer ${await h.token({ ttlSeconds: 86_400 })}`)).status).toBe(200);
    });

    it('with iat in the future beyond the clock tolerance', async () => {
      const ahead = await h.token({ ttlSeconds: 600, now: new Date(Date.now() + 60_000) });
      const response = await call(`Bearer ${ahead}`);
      expect(response.status).toBe(401);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_AUTH_TOKEN_INVALID');
      expect(body.error).toContain('`iat` lies in the future');
      // A couple of seconds of skew between issuer and service is tolerated.
      expect((await call(`Bearer ${await h.token({ ttlSeconds: 600, now: new Date(Date.now() + 2_000) })}`)).status).toBe(200);
    });

    it('with a token lacking exp or a tenant claim', async () => {
      const key = h.keyRing.signingKey;
      const noExp = await new SignJWT({ tenant: 'acme', roles: ['ADMIN'] })
        .setProtectedHeader({ alg: 'HS256', kid: key.kid })
        .setSubject('alice')
        .setIssuedAt()
        .sign(key.secret);
      const noTenant = await new SignJWT({ roles: ['ADMIN'] })
        .setProtectedHeader({ alg: 'HS256', kid: key.kid })
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key.secret);
      for (const token of [noExp, noTenant]) {
        const response = await call(`Bearer ${token}`);
        expect(response.status).toBe(401);
        expect((await envelope(response)).code).toBe('ERR_AUTH_TOKEN_INVALID');
      }
    });
  });

  describe('403', () => {
    it('when the token belongs to another tenant', async () => {
      const response = await call(`Bearer ${await h.token({ tenant: 'globex' })}`, 'acme');
      expect(response.status).toBe(403);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_AUTH_TENANT_MISMATCH');
      expect(body.error).toContain('globex');
    });

    it.each<Role>(['VIEWER', 'MEMBER'])('when role %s is below ADMIN', async (role) => {
      const response = await call(`Bearer ${await h.token({ roles: [role] })}`);
      expect(response.status).toBe(403);
      const body = await envelope(response);
      expect(body.code).toBe('ERR_AUTH_ROLE_INSUFFICIENT');
      expect(body.error).toContain('ADMIN');
    });

    it('when the token holds no known role', async () => {
      const response = await call(`Bearer ${await h.token({ roles: ['SUPERUSER'] })}`);
      expect(response.status).toBe(403);
    });
  });

  it.each<Role>(['ADMIN', 'OWNER'])('lets %s through to an ADMIN endpoint', async (role) => {
    const response = await call(`Bearer ${await h.token({ roles: [role] })}`);
    expect(response.status).toBe(200);
  });

  it('counts the highest of several roles', async () => {
    const response = await call(`Bearer ${await h.token({ roles: ['VIEWER', 'ADMIN', 'MEMBER'] })}`);
    expect(response.status).toBe(200);
  });

  it('verifies tokens of every configured key, so keys can rotate', async () => {
    const previousOnly = createJwtKeyRing(
      [{ kid: 'previous', secret: new TextDecoder().decode(h.keyRing.keys.get('previous')!.secret) }],
      'previous',
    );
    const response = await call(`Bearer ${await h.token({ ring: previousOnly })}`);
    expect(response.status).toBe(200);
  });
});
