// Bearer tokens from raw parts: an HS256 JWT made and checked with node:crypto alone. The check is
// the whole of it on every request (no cache of verified tokens): signature, then the claims.
import { createHmac, timingSafeEqual } from 'node:crypto';

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

const mac = (secret, signingInput) => createHmac('sha256', secret).update(signingInput).digest();

/** A compact HS256 token carrying `claims`. */
export function signToken(secret, claims) {
  const signingInput = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${signingInput}.${mac(secret, signingInput).toString('base64url')}`;
}

/**
 * The claims of an `Authorization: Bearer …` value when its signature is right, its header is the
 * one this server issues and it has not expired; null otherwise.
 */
export function verifyBearer(secret, authorization, nowSeconds) {
  if (typeof authorization !== 'string' || !authorization.startsWith('Bearer ')) return null;
  const token = authorization.slice(7);
  const firstDot = token.indexOf('.');
  const lastDot = token.lastIndexOf('.');
  if (firstDot <= 0 || lastDot <= firstDot || token.slice(0, firstDot) !== HEADER) return null;
  const expected = mac(secret, token.slice(0, lastDot));
  const given = Buffer.from(token.slice(lastDot + 1), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let claims;
  try {
    claims = JSON.parse(Buffer.from(token.slice(firstDot + 1, lastDot), 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (claims === null || typeof claims !== 'object' || !(claims.exp > nowSeconds)) return null;
  return claims;
}
