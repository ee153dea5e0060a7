// Requests signed as the benchmark tenant (HMAC v1, a distinct nonce each).
import { createHash, randomBytes } from 'node:crypto';
import { computeSignature, signRequest } from '../../dist/src/auth/request-signature.js';
import { ROLE, TENANT } from './bench-service.mjs';

const sha256Hex = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Signed requests prepared before the clock starts: each body is hashed once, each request gets
 * its own nonce and signature. The server still does every check on every request (timestamp,
 * HMAC over the body, single-use nonce in Redis); only the client's signing is moved out of the
 * measurement, as a real client signs on its own machine.
 */
export function signedPool(bodies, path, secret, size) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const hashes = bodies.map(sha256Hex);
  const nonces = new Array(size);
  const signatures = new Array(size);
  for (let i = 0; i < size; i++) {
    const nonce = randomBytes(18).toString('base64url');
    const canonical = ['POST', path, timestamp, nonce, TENANT, ROLE, hashes[i % bodies.length]].join('\n');
    nonces[i] = nonce;
    signatures[i] = `v1=${computeSignature(secret, canonical)}`;
  }
  let next = 0;
  /** autocannon hook: a fresh signed request each time. */
  const setupRequest = (request) => {
    const i = next++;
    if (i >= size) throw new Error(`signed request pool of ${size} exhausted: raise SIGNATURE_RATE_CAP`);
    return {
      ...request,
      body: bodies[i % bodies.length],
      headers: {
        'content-type': 'application/json',
        'x-tenant-id': TENANT,
        'x-user-role': ROLE,
        'x-policy-timestamp': timestamp,
        'x-policy-nonce': nonces[i],
        'x-policy-signature': signatures[i],
      },
    };
  };
  return {
    used: () => next,
    size,
    /** autocannon's `requests` option. */
    requests: [{ method: 'POST', path, setupRequest }],
  };
}

/** One request signed now (as `role`), for the checks outside the measurement. */
export async function signedPost(base, path, body, secret, role = ROLE) {
  const headers = signRequest({ method: 'POST', pathWithQuery: path, body, tenantId: TENANT, role, secret });
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
  return { status: response.status, body: await response.json().catch(() => null) };
}
