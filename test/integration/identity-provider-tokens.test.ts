// Tokens of a real OpenID provider (client-credentials grant) against the built service process,
// configured only through its environment: JWT_JWKS_URL, JWT_ISSUER, JWT_AUDIENCE.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTokenCli } from '../../scripts/token.js';
import { assertServiceBuilt, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';
import { newProviderKey, PROVIDER_AUDIENCE, startOpenIdProvider, type OpenIdProvider, type ProviderKey } from '../support/openid-provider.js';

const COOLDOWN_SECONDS = 2;
const SOURCE = 'Module m.\nRule f given x as Int, produce Int:\n  Return x times 2.\n';

describe('identity-provider tokens (a real OpenID provider, the service process)', () => {
  let provider: OpenIdProvider;
  let service: ServiceProcess;
  let base: string;
  let dataDir: string;
  let env: Record<string, string>;
  let k1: ProviderKey;

  beforeAll(async () => {
    assertServiceBuilt();
    k1 = await newProviderKey('k1');
    provider = await startOpenIdProvider({
      keys: [k1],
      clients: [
        { clientId: 'acme-ops', tenant: 'acme', roles: ['offline_access', 'admin', 'member'] },
        { clientId: 'acme-reader', tenant: 'acme', roles: ['viewer'] },
        { clientId: 'globex-app', tenant: 'globex', roles: ['member'] },
      ],
    });
    dataDir = await mkdtemp(join(tmpdir(), 'pe-idp-'));
    env = {
      DATA_DIR: dataDir,
      REDIS_URL,
      REDIS_KEY_PREFIX: `test-${randomUUID()}`,
      HOST: '127.0.0.1',
      PORT: '0',
      JWT_JWKS_URL: provider.jwksUrl,
      JWT_ISSUER: provider.issuer,
      JWT_AUDIENCE: PROVIDER_AUDIENCE,
      JWT_JWKS_COOLDOWN_SECONDS: String(COOLDOWN_SECONDS),
    };
    service = runService([], env);
    const listening = await service.waitForLog('api listening');
    base = `http://127.0.0.1:${listening.port as number}`;
  });

  afterAll(async () => {
    if (service?.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await provider?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const get = (path: string, token: string, tenant = 'acme') =>
    fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenant } });
  const evaluate = (token: string, tenant = 'acme') =>
    fetch(`${base}/api/v1/policies/evaluate-source`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenant, 'content-type': 'application/json' },
      body: JSON.stringify({ source: SOURCE, functionName: 'f', context: { x: 21 }, locale: 'en-US' }),
    });
  const codeOf = async (response: Response) => ((await response.json()) as { code: string; error: string });
  const now = () => Math.floor(Date.now() / 1000);
  const claims = (extra: Record<string, unknown> = {}) => ({
    iss: provider.issuer,
    aud: PROVIDER_AUDIENCE,
    sub: 'acme-ops',
    tenant: 'acme',
    role: ['admin'],
    iat: now(),
    exp: now() + 300,
    ...extra,
  });

  it('says at start-up whose tokens it accepts', async () => {
    while (!service.stderr.some((line) => line.includes(' started, role '))) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(service.stderr.join('\n')).toContain(`accepts development tokens and tokens of ${provider.issuer} (keys at ${provider.jwksUrl})`);
  });

  it('accepts the provider\'s tokens with the role and tenant of their claims, and records the subject as the actor', async () => {
    const token = await provider.token('acme-ops');
    const evaluated = await evaluate(token);
    expect(evaluated.status).toBe(200);
    expect(await evaluated.json()).toMatchObject({ result: 42 });
    const records = await get('/api/v1/audit/type/SOURCE_EVALUATED', token);
    expect(records.status).toBe(200);
    expect(((await records.json()) as Array<{ actorId: string }>).map((record) => record.actorId)).toEqual(['acme-ops']);
  });

  it('holds the role of the token: a viewer cannot read the audit log, and no token serves another tenant', async () => {
    const viewer = await get('/api/v1/audit', await provider.token('acme-reader'));
    expect(viewer.status).toBe(403);
    expect((await codeOf(viewer)).code).toBe('ERR_AUTH_ROLE_INSUFFICIENT');
    const crossTenant = await evaluate(await provider.token('globex-app'), 'acme');
    expect(crossTenant.status).toBe(403);
    expect((await codeOf(crossTenant)).code).toBe('ERR_AUTH_TENANT_MISMATCH');
  });

  it('keeps taking development tokens beside them', async () => {
    const out: string[] = [];
    expect(await runTokenCli(['--tenant', 'acme', '--role', 'ADMIN'], { env, out: (line) => out.push(line), err: () => {} })).toBe(0);
    expect((await get('/api/v1/audit/verify', out[0]!)).status).toBe(200);
  });

  it.each([
    ['expired', { iat: 1_700_000_000, exp: 1_700_000_300 }, 'ERR_AUTH_TOKEN_EXPIRED', 'expired'],
    ['not yet valid', { nbf: Math.floor(Date.now() / 1000) + 3600 }, 'ERR_AUTH_TOKEN_INVALID', '`nbf`'],
    ['for another audience', { aud: 'another-api' }, 'ERR_AUTH_TOKEN_INVALID', '`aud`'],
    ['of another issuer', { iss: 'http://127.0.0.1:1/evil' }, 'ERR_AUTH_TOKEN_INVALID', '`iss`'],
  ])('refuses a token signed with the provider\'s key that is %s', async (_label, extra, code, fragment) => {
    const response = await get('/api/v1/audit', await k1.sign(claims(extra)));
    expect(response.status).toBe(401);
    const body = await codeOf(response);
    expect(body.code).toBe(code);
    expect(body.error).toContain(fragment);
  });

  it('refuses algorithm confusion: HS256 keyed with the provider\'s public key, and `none`', async () => {
    const publicKey = { kty: k1.privateJwk.kty, n: k1.privateJwk.n, e: k1.privateJwk.e, kid: 'k1' };
    const forged = await new SignJWT(claims({ role: ['owner'] }))
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(new TextEncoder().encode(JSON.stringify(publicKey)));
    const confused = await get('/api/v1/audit', forged);
    expect(confused.status).toBe(401);
    expect((await codeOf(confused)).code).toBe('ERR_AUTH_TOKEN_INVALID');
    const none = `${Buffer.from('{"alg":"none","kid":"k1"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`;
    expect((await get('/api/v1/audit', none)).status).toBe(401);
  });

  it('fetches the keys at most once per cooldown for a flood of unknown key ids', async () => {
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_SECONDS * 1000 + 100));
    const before = provider.jwksFetches();
    const stranger = await importPrivate(await newProviderKey('stranger'));
    const forge = async (i: number) => {
      const forged = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: `made-up-${i}` }).sign(stranger);
      return (await get('/api/v1/audit', forged)).status;
    };
    // One after another (concurrent ones would share a fetch anyway), then all at once.
    const answers: number[] = [];
    for (let i = 0; i < 15; i++) answers.push(await forge(i));
    answers.push(...(await Promise.all(Array.from({ length: 25 }, (_, i) => forge(15 + i)))));
    expect(new Set(answers)).toEqual(new Set([401]));
    expect(provider.jwksFetches() - before).toBeLessThanOrEqual(1);
  });

  it('follows a rotation of the provider\'s signing keys while running, and keeps verifying while the provider is down', async () => {
    const k2 = await newProviderKey('k2');
    await provider.restartWith([k2, k1]);
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_SECONDS * 1000 + 100));
    const rotated = await provider.token('acme-ops');
    expect(JSON.parse(Buffer.from(rotated.split('.')[0]!, 'base64url').toString())).toMatchObject({ kid: 'k2' });
    expect((await get('/api/v1/audit/verify', rotated)).status).toBe(200);
    // Tokens signed before the rotation stay valid while their key is published.
    expect((await get('/api/v1/audit/verify', await k1.sign(claims()))).status).toBe(200);

    // The provider goes down: a token of a key it never published makes the service try it again
    // (once per cooldown, the failure logged), and the keys fetched before go on verifying.
    await provider.stop();
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_SECONDS * 1000 + 100));
    const warnedBefore = service.lines.filter((line) => String(line.msg).startsWith('identity provider key set not fetched')).length;
    const stranger = await importPrivate(await newProviderKey('k9'));
    for (let i = 0; i < 5; i++) {
      const unknown = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: 'k9' }).sign(stranger);
      expect((await get('/api/v1/audit/verify', unknown)).status).toBe(401);
    }
    await service.waitForLog((line) => line.msg === 'identity provider key set not fetched; the keys fetched before stay in use');
    const warned = service.lines.filter((line) => String(line.msg).startsWith('identity provider key set not fetched')).length;
    expect(warned - warnedBefore).toBe(1);
    expect((await get('/api/v1/audit/verify', await k2.sign(claims({ sub: 'during-outage' })))).status).toBe(200);
    await provider.restartWith([k2, k1]);
  });
});

async function importPrivate(key: ProviderKey) {
  const { importJWK } = await import('jose');
  return importJWK(key.privateJwk, 'RS256');
}
