import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isValidTenantId } from '../kernel/index.js';

/**
 * HMAC-SHA256 request signing (scheme `v1`). The canonical string is one field a line, joined by
 * `\n` with no trailing newline:
 *
 *   METHOD               uppercase
 *   path with query      the request target exactly as sent (`/graphql?x=1`)
 *   X-Policy-Timestamp   Unix seconds, decimal, no sign or leading zeros
 *   X-Policy-Nonce       16–128 characters of [A-Za-z0-9_-]
 *   X-Tenant-Id
 *   X-User-Role
 *   SHA-256 of the raw body bytes, lowercase hex (empty body: hash of the empty string)
 *
 * The key is the UTF-8 bytes of the tenant secret as stored; the signature travels as
 * `X-Policy-Signature: v1=<base64url, unpadded>`. src/auth/request-signing.md is the reference.
 */

export const SIGNATURE_SCHEME = 'v1';
export const DEFAULT_SIGNATURE_WINDOW_SECONDS = 300;
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/** Lowercase header names as Node exposes them on incoming requests. */
export const SIGNING_HEADERS = {
  signature: 'x-policy-signature',
  timestamp: 'x-policy-timestamp',
  nonce: 'x-policy-nonce',
  tenantId: 'x-tenant-id',
  role: 'x-user-role',
} as const;

const TIMESTAMP_PATTERN = /^(0|[1-9][0-9]{0,11})$/;
// 32 HMAC bytes are exactly 43 unpadded base64url characters.
const SIGNATURE_HEADER_PATTERN = /^v1=([A-Za-z0-9_-]{43})$/;
const SIGNATURE_BYTES = 32;

export type RequestBody = string | Uint8Array | null | undefined;

export interface CanonicalRequest {
  method: string;
  pathWithQuery: string;
  timestamp: string;
  nonce: string;
  tenantId: string;
  role: string;
  body: RequestBody;
}

export function bodySha256Hex(body: RequestBody): string {
  const hash = createHash('sha256');
  if (typeof body === 'string') hash.update(body, 'utf8');
  else if (body) hash.update(body);
  return hash.digest('hex');
}

/** Builds the string that is signed. Refuses line breaks so that no field can forge another. */
export function canonicalString(request: CanonicalRequest): string {
  const fields = [
    request.method.toUpperCase(),
    request.pathWithQuery,
    request.timestamp,
    request.nonce,
    request.tenantId,
    request.role,
  ];
  for (const field of fields) {
    if (/[\r\n]/.test(field)) throw new TypeError('signed request fields must not contain line breaks');
  }
  return [...fields, bodySha256Hex(request.body)].join('\n');
}

/** base64url (unpadded) HMAC-SHA256 of the canonical string. */
export function computeSignature(secret: string, canonical: string): string {
  return hmac(secret, canonical).toString('base64url');
}

/** 24 characters from 18 random bytes: 144 bits, inside the nonce alphabet. */
export function generateNonce(): string {
  return randomBytes(18).toString('base64url');
}

export interface SignRequestInput {
  method: string;
  pathWithQuery: string;
  body?: RequestBody;
  tenantId: string;
  role: string;
  secret: string;
  /** Unix seconds; defaults to now. */
  timestamp?: number;
  /** Defaults to a fresh random nonce. */
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

export function signRequest(input: SignRequestInput): SignedRequestHeaders {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`timestamp must be a non-negative integer of Unix seconds, got ${timestamp}`);
  }
  const nonce = input.nonce ?? generateNonce();
  if (!NONCE_PATTERN.test(nonce)) {
    throw new RangeError('nonce must be 16 to 128 characters of A-Z, a-z, 0-9, `_` or `-`');
  }
  if (!isValidTenantId(input.tenantId)) {
    throw new RangeError('tenant id must be 1 to 64 characters of A-Z, a-z, 0-9, `_` or `-`');
  }
  if (input.secret.length === 0) throw new RangeError('signing secret must not be empty');
  const canonical = canonicalString({
    method: input.method,
    pathWithQuery: input.pathWithQuery,
    timestamp: String(timestamp),
    nonce,
    tenantId: input.tenantId,
    role: input.role,
    body: input.body,
  });
  return {
    'X-Tenant-Id': input.tenantId,
    'X-User-Role': input.role,
    'X-Policy-Timestamp': String(timestamp),
    'X-Policy-Nonce': nonce,
    'X-Policy-Signature': `${SIGNATURE_SCHEME}=${computeSignature(input.secret, canonical)}`,
  };
}

export type SignatureErrorCode =
  | 'ERR_AUTH_SIGNATURE_MISSING'
  | 'ERR_AUTH_SIGNATURE_INVALID'
  | 'ERR_AUTH_TIMESTAMP_STALE';

export interface SignatureFailure {
  ok: false;
  code: SignatureErrorCode;
  message: string;
}

export interface SigningHeaderValues {
  signatureHeader: string | undefined;
  timestamp: string | undefined;
  nonce: string | undefined;
}

export interface FreshnessOptions {
  /** Unix seconds; defaults to now. */
  nowSeconds?: number;
  windowSeconds?: number;
}

export interface CheckedSigningHeaders {
  ok: true;
  signature: Buffer;
  timestamp: string;
  nonce: string;
}

/**
 * Presence, format and freshness of the signing headers: everything that can be judged without
 * the tenant's secrets, so that junk is refused before any lookup.
 */
export function checkSigningHeaders(
  headers: SigningHeaderValues,
  options: FreshnessOptions = {},
): CheckedSigningHeaders | SignatureFailure {
  const missing = (
    [
      ['X-Policy-Signature', headers.signatureHeader],
      ['X-Policy-Timestamp', headers.timestamp],
      ['X-Policy-Nonce', headers.nonce],
    ] as const
  )
    .filter(([, value]) => value === undefined || value === '')
    .map(([name]) => name);
  if (missing.length > 0) {
    return fail('ERR_AUTH_SIGNATURE_MISSING', `request is not signed: missing ${missing.join(', ')}`);
  }
  const signatureHeader = headers.signatureHeader!.trim();
  const timestamp = headers.timestamp!.trim();
  const nonce = headers.nonce!.trim();

  const match = SIGNATURE_HEADER_PATTERN.exec(signatureHeader);
  if (!match) {
    return fail(
      'ERR_AUTH_SIGNATURE_INVALID',
      'X-Policy-Signature must be `v1=` followed by the unpadded base64url HMAC-SHA256 (43 characters)',
    );
  }
  if (!NONCE_PATTERN.test(nonce)) {
    return fail('ERR_AUTH_SIGNATURE_INVALID', 'X-Policy-Nonce must be 16 to 128 characters of A-Z, a-z, 0-9, `_` or `-`');
  }
  if (!TIMESTAMP_PATTERN.test(timestamp)) {
    return fail('ERR_AUTH_SIGNATURE_INVALID', 'X-Policy-Timestamp must be Unix time in whole seconds');
  }
  const windowSeconds = options.windowSeconds ?? DEFAULT_SIGNATURE_WINDOW_SECONDS;
  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > windowSeconds) {
    return fail(
      'ERR_AUTH_TIMESTAMP_STALE',
      `X-Policy-Timestamp ${timestamp} is outside the accepted window of ±${windowSeconds} s (server time ${nowSeconds})`,
    );
  }
  const signature = Buffer.from(match[1]!, 'base64url');
  if (signature.length !== SIGNATURE_BYTES) {
    return fail('ERR_AUTH_SIGNATURE_INVALID', 'X-Policy-Signature does not decode to a 32-byte HMAC-SHA256');
  }
  return { ok: true, signature, timestamp, nonce };
}

export interface VerifySignatureInput extends SigningHeaderValues, FreshnessOptions {
  method: string;
  pathWithQuery: string;
  body: RequestBody;
  tenantId: string;
  role: string;
  /** The tenant's active secrets (newest first during rotation). Empty: nothing can match. */
  secrets: readonly string[];
}

export interface SignatureVerified {
  ok: true;
  /** Index in `secrets` of the secret that matched (0 = newest). */
  secretIndex: number;
  timestamp: string;
  nonce: string;
}

/** Pure check: does not consume the nonce (the caller does that only after success). */
export function verifySignature(input: VerifySignatureInput): SignatureVerified | SignatureFailure {
  const checked = checkSigningHeaders(input, input);
  if (!checked.ok) return checked;
  const canonical = canonicalString({
    method: input.method,
    pathWithQuery: input.pathWithQuery,
    timestamp: checked.timestamp,
    nonce: checked.nonce,
    tenantId: input.tenantId,
    role: input.role,
    body: input.body,
  });
  // Every secret is tried (and one throwaway key when there are none) so the time taken does not
  // tell which secret matched or whether the tenant has any.
  const candidates = input.secrets.length > 0 ? input.secrets : [UNKNOWN_TENANT_KEY];
  let secretIndex = -1;
  candidates.forEach((secret, index) => {
    const matches = timingSafeEqual(hmac(secret, canonical), checked.signature);
    if (matches && secretIndex === -1 && input.secrets.length > 0) secretIndex = index;
  });
  if (secretIndex === -1) {
    return fail('ERR_AUTH_SIGNATURE_INVALID', 'request signature does not match');
  }
  return { ok: true, secretIndex, timestamp: checked.timestamp, nonce: checked.nonce };
}

const UNKNOWN_TENANT_KEY = randomBytes(32).toString('base64url');

function hmac(secret: string, canonical: string): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(canonical, 'utf8').digest();
}

function fail(code: SignatureErrorCode, message: string): SignatureFailure {
  return { ok: false, code, message };
}
