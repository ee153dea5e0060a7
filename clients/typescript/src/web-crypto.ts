/**
 * SHA-256, HMAC-SHA256, random bytes and the text encodings the client needs, on WebCrypto
 * (`globalThis.crypto`, in Node.js ≥ 19 and every browser): the package has no dependency, not even
 * on Node's own modules.
 */

const encoder = new TextEncoder();

/** UTF-8 bytes of a text (lone surrogates as U+FFFD, as fetch sends them). */
function utf8(text: string) {
  return encoder.encode(text);
}

function subtle(): SubtleCrypto {
  const crypto = globalThis.crypto as Crypto | undefined;
  if (crypto?.subtle === undefined) {
    throw new Error('@policy-engine/client needs WebCrypto (globalThis.crypto.subtle): Node.js 19 or later, or a browser in a secure context');
  }
  return crypto.subtle;
}

/** Bytes WebCrypto takes: a copy, so a view on a SharedArrayBuffer (or part of a buffer) is fine too. */
function ownBytes(data: string | Uint8Array) {
  return typeof data === 'string' ? utf8(data) : new Uint8Array(data);
}

export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Unpadded base64url. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Lowercase hex SHA-256 of a text's UTF-8 bytes, or of bytes. */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await subtle().digest('SHA-256', ownBytes(data))));
}

/** An HMAC-SHA256 key from the UTF-8 bytes of a secret. */
export function hmacSha256Key(secret: string): Promise<CryptoKey> {
  return subtle().importKey('raw', utf8(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

export async function hmacSha256(key: CryptoKey, text: string): Promise<Uint8Array> {
  return new Uint8Array(await subtle().sign('HMAC', key, utf8(text)));
}

export function randomBytes(length: number): Uint8Array {
  const crypto = globalThis.crypto as Crypto | undefined;
  if (crypto === undefined) throw new Error('@policy-engine/client needs WebCrypto (globalThis.crypto)');
  return crypto.getRandomValues(new Uint8Array(length));
}
