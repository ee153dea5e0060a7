// A real OpenID provider (the `oidc-provider` package) issuing JWT access tokens by the
// client-credentials grant, as Keycloak, Entra ID or Okta issue them to services.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

/** A signing key the provider publishes; tests sign their own tokens with it too. */
export interface ProviderKey {
  kid: string;
  privateJwk: JWK;
  sign(payload: JWTPayload): Promise<string>;
}

export async function newProviderKey(kid: string): Promise<ProviderKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateJwk, sign: (payload) => new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' }).sign(privateKey) };
}

/** A service account: its tenant and roles end up in the claims of its access tokens. */
export interface ProviderClient {
  clientId: string;
  tenant: string;
  roles: string[];
}

export const PROVIDER_AUDIENCE = 'policy-engine';
const CLIENT_SECRET = 'client-secret-of-the-test-provider';

export interface OpenIdProvider {
  issuer: string;
  jwksUrl: string;
  /** An access token of the client by the client-credentials grant. */
  token(clientId: string): Promise<string>;
  /** GET /jwks answered so far (across restarts). */
  jwksFetches(): number;
  /** Stops it and starts it again on the same address with other keys (the first signs). */
  restartWith(keys: ProviderKey[]): Promise<void>;
  stop(): Promise<void>;
}

export async function startOpenIdProvider(options: { keys: ProviderKey[]; clients: ProviderClient[]; port?: number }): Promise<OpenIdProvider> {
  let port = options.port ?? 0;
  let issuer = '';
  let server: Server | undefined;
  let fetches = 0;
  const claimsOf = new Map(options.clients.map((client) => [client.clientId, { tenant: client.tenant, role: client.roles }]));

  async function start(keys: ProviderKey[]): Promise<void> {
    // The issuer names the port, so the first start binds one to learn it.
    if (port === 0) {
      const probe = (await import('node:net')).createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      port = (probe.address() as AddressInfo).port;
      await new Promise((resolve) => probe.close(resolve));
    }
    issuer = `http://127.0.0.1:${port}`;
    const provider = new Provider(issuer, {
      clients: options.clients.map((client) => ({
        client_id: client.clientId,
        client_secret: CLIENT_SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      })),
      jwks: { keys: keys.map((key) => key.privateJwk) },
      ttl: { ClientCredentials: 300 },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => 'urn:policy-engine',
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({
            scope: 'evaluate',
            audience: PROVIDER_AUDIENCE,
            accessTokenFormat: 'jwt',
            accessTokenTTL: 300,
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      extraTokenClaims: (_ctx, token) => claimsOf.get((token as { clientId?: string }).clientId ?? '') ?? {},
    });
    provider.use(async (ctx, next) => {
      if (ctx.path === '/jwks') fetches += 1;
      await next();
    });
    server = provider.listen(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      server!.once('listening', resolve);
      server!.once('error', reject);
    });
  }

  async function stop(): Promise<void> {
    const running = server;
    server = undefined;
    if (!running) return;
    running.closeAllConnections();
    await new Promise((resolve) => running.close(resolve));
  }

  await start(options.keys);
  return {
    get issuer() {
      return issuer;
    },
    get jwksUrl() {
      return `${issuer}/jwks`;
    },
    async token(clientId) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${CLIENT_SECRET}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials&scope=evaluate',
      });
      const body = (await response.json()) as { access_token?: string };
      if (response.status !== 200 || body.access_token === undefined) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    jwksFetches: () => fetches,
    async restartWith(keys) {
      await stop();
      await start(keys);
    },
    stop,
  };
}
