// REST calls with a bearer token of a tenant and role, as the integration suites make them.
import { createTokenSigner, type JwtKeyRing, type Role } from '../../src/auth/index.js';

export interface HttpAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export type BearerCall = <T = unknown>(
  tenant: { tenantId: string },
  role: Role,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<HttpAnswer<T>>;

/** A string body is sent as it is (malformed JSON on purpose); anything else as JSON. Never throws on a status. */
export function createBearerCaller(baseUrl: string, keyRing: JwtKeyRing): BearerCall {
  const signer = createTokenSigner(keyRing);
  return async <T>(tenant: { tenantId: string }, role: Role, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const token = await signer.sign({ subject: `${role.toLowerCase()}-of-${tenant.tenantId}`, tenantId: tenant.tenantId, roles: [role], ttlSeconds: 600 });
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-tenant-id': tenant.tenantId,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text === '' ? null : JSON.parse(text)) as T };
  };
}
