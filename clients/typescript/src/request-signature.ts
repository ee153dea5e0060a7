import { hmacSha256, hmacSha256Key, randomBytes, sha256Hex, toBase64Url } from './web-crypto.js';

/**
 * HMAC-SHA256 request signing, scheme `v1` (the service's src/auth/request-signing.md is the
 * reference; this is the client's own copy, so the package depends on nothing of the service). The
 * signed string is one field a line, joined by `\n` with no trailing newline:
 *
 *   METHOD               uppercase
 *   path with query      the request target exactly as sent (`/graphql?x=1`)
 *   X-Policy-Timestamp   Unix seconds, decimal
 *   X-Policy-Nonce       16–128 characters of [A-Za-z0-9_-]
 *   X-Tenant-Id
 *   X-User-Role
 *   SHA-256 of the raw body bytes, lowercase hex (no body: the hash of the empty string)
 *
 * The key is the UTF-8 of the tenant secret; the signature travels as
 * `X-Policy-Signature: v1=<base64url of the HMAC, unpadded>`.
 */

export const SIGNATURE_SCHEME = 'v1';
const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
const TENANT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface SignRequestInput {
  method: string;
  /** The request target exactly as sent: path and query, e.g. `/api/v1/workflows/w-1/events?fromSeq=3`. */
  pathWithQuery: string;
  /** The body bytes as sent (a string counts as its UTF-8); none for a request without a body. */
  body?: string | Uint8Array | null;
  tenantId: string;
  role: string;
  /** The tenant's signing secret. */
  secret: string;
  /** Unix seconds; defaults to now. */
  timestamp?: number;
  /** Defaults to a fresh random nonce. Never sign two requests with one nonce: the service refuses the second. */
  nonce?: string;
}

// A type literal, not an interface, so it passes as `HeadersInit` / `Record<string, string>`.
export type SignedRequestHeaders = {
  'X-Tenant-Id': string;
  'X-User-Role': string;
  'X-Policy-Timestamp': string;
  'X-Policy-Nonce': string;
  'X-Policy-Signature': string;
};

/** 24 characters from 18 random bytes: 144 bits, inside the nonce alphabet. */
export function generateNonce(): string {
  return toBase64Url(randomBytes(18));
}

/** The five headers of a signed request. Refuses what the service would refuse, before anything is sent. */
export async function signRequest(input: SignRequestInput): Promise<SignedRequestHeaders> {
  return signWith(await signingKey(input.secret), input);
}

/** Signs requests with one secret, whose key is imported once (at the first request). */
export type RequestSigner = (input: Omit<SignRequestInput, 'secret'>) => Promise<SignedRequestHeaders>;

export function createRequestSigner(secret: string): RequestSigner {
  let key: Promise<CryptoKey> | undefined;
  return async (input) => {
    key ??= signingKey(secret);
    return signWith(await key, input);
  };
}

function signingKey(secret: string): Promise<CryptoKey> {
  if (secret.length === 0) return Promise.reject(new RangeError('signing secret must not be empty'));
  return hmacSha256Key(secret);
}

async function signWith(key: CryptoKey, input: Omit<SignRequestInput, 'secret'>): Promise<SignedRequestHeaders> {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`timestamp must be a non-negative integer of Unix seconds, got ${timestamp}`);
  }
  const nonce = input.nonce ?? generateNonce();
  if (!NONCE_PATTERN.test(nonce)) throw new RangeError('nonce must be 16 to 128 characters of A-Z, a-z, 0-9, `_` or `-`');
  if (!TENANT_ID_PATTERN.test(input.tenantId)) throw new RangeError('tenant id must be 1 to 64 characters of A-Z, a-z, 0-9, `_` or `-`');
  const fields = [input.method.toUpperCase(), input.pathWithQuery, String(timestamp), nonce, input.tenantId, input.role];
  // No field may forge another.
  for (const field of fields) {
    if (/[\r\n]/.test(field)) throw new TypeError('signed request fields must not contain line breaks');
  }
  const canonical = [...fields, await sha256Hex(input.body ?? '')].join('\n');
  return {
    'X-Tenant-Id': input.tenantId,
    'X-User-Role': input.role,
    'X-Policy-Timestamp': String(timestamp),
    'X-Policy-Nonce': nonce,
    'X-Policy-Signature': `${SIGNATURE_SCHEME}=${toBase64Url(await hmacSha256(key, canonical))}`,
  };
}
