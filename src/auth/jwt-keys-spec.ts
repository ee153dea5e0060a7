export interface JwtKeySpec {
  kid: string;
  secret: string;
}

const KID = /^[A-Za-z0-9._-]{1,64}$/;
/** HS256 keys shorter than the hash output weaken the MAC (RFC 7518 §3.2). */
export const MIN_JWT_SECRET_LENGTH = 32;

/**
 * Parses `kid:secret,kid:secret` (the first entry signs, all verify).
 * Throws an Error whose message says what is wrong, without echoing secrets.
 */
export function parseJwtKeysSpec(text: string): JwtKeySpec[] {
  const keys: JwtKeySpec[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of text.split(',').entries()) {
    const trimmed = entry.trim();
    const colon = trimmed.indexOf(':');
    if (colon <= 0) throw new Error(`entry ${index + 1} is not \`kid:secret\``);
    const kid = trimmed.slice(0, colon);
    const secret = trimmed.slice(colon + 1);
    if (!KID.test(kid)) throw new Error(`key id \`${kid}\` must be 1-64 characters of letters, digits, '.', '_' or '-'`);
    if (seen.has(kid)) throw new Error(`key id \`${kid}\` appears twice`);
    if (secret.length < MIN_JWT_SECRET_LENGTH) {
      throw new Error(`the secret of key \`${kid}\` must be at least ${MIN_JWT_SECRET_LENGTH} characters`);
    }
    seen.add(kid);
    keys.push({ kid, secret });
  }
  return keys;
}
