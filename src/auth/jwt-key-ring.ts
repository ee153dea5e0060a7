import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseJwtKeysSpec, type JwtKeySpec } from './jwt-keys-spec.js';

export interface JwtKey {
  kid: string;
  secret: Uint8Array;
}

/** Keys by id: the first signs, all verify, so a new key can be introduced before the old one goes. */
export interface JwtKeyRing {
  signingKey: JwtKey;
  keys: ReadonlyMap<string, JwtKey>;
  /** `JWT_KEYS` or the path of the key file, for start-up logs. */
  source: string;
}

export const JWT_KEY_FILE_NAME = 'jwt-keys.json';

export function createJwtKeyRing(specs: readonly JwtKeySpec[], source: string): JwtKeyRing {
  const [first] = specs;
  if (!first) throw new Error(`${source} holds no keys`);
  const encoder = new TextEncoder();
  const keys = new Map<string, JwtKey>();
  for (const spec of specs) keys.set(spec.kid, { kid: spec.kid, secret: encoder.encode(spec.secret) });
  return { signingKey: keys.get(first.kid)!, keys, source };
}

export interface JwtKeySource {
  /** Parsed `JWT_KEYS`; when present the key file is not used. */
  jwtKeys?: readonly JwtKeySpec[] | undefined;
  dataDir: string;
}

/**
 * `JWT_KEYS` when set; otherwise the key file under the data directory, created with a fresh
 * random key on first use so that the service and the token script agree without set-up.
 */
export async function loadJwtKeyRing(source: JwtKeySource): Promise<JwtKeyRing> {
  if (source.jwtKeys && source.jwtKeys.length > 0) return createJwtKeyRing(source.jwtKeys, 'JWT_KEYS');
  const path = resolve(source.dataDir, JWT_KEY_FILE_NAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    text = await createKeyFile(path, source.dataDir);
  }
  return createJwtKeyRing(parseKeyFile(text, path), path);
}

function parseKeyFile(text: string, path: string): JwtKeySpec[] {
  try {
    const parsed = JSON.parse(text) as { keys?: unknown };
    if (!Array.isArray(parsed.keys)) throw new Error('no `keys` array');
    const spec = parsed.keys
      .map((key: { kid?: unknown; secret?: unknown }) => {
        if (typeof key?.kid !== 'string' || typeof key?.secret !== 'string') throw new Error('a key lacks `kid` or `secret`');
        return `${key.kid}:${key.secret}`;
      })
      .join(',');
    return parseJwtKeysSpec(spec);
  } catch (error) {
    throw new Error(`JWT key file ${path} is unusable: ${(error as Error).message}; fix it, delete it to start over, or set JWT_KEYS`);
  }
}

async function createKeyFile(path: string, dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  const kid = `local-${new Date().toISOString().slice(0, 10).replaceAll('-', '')}-${randomBytes(3).toString('hex')}`;
  const text = `${JSON.stringify({ keys: [{ kid, secret: randomBytes(32).toString('base64url') }] }, null, 2)}\n`;
  // Write aside, then link: link fails if another process created the file first, so two
  // processes starting together end up sharing one key instead of overwriting each other's.
  const temporary = join(dataDir, `.${JWT_KEY_FILE_NAME}.${process.pid}.${randomBytes(4).toString('hex')}`);
  await writeFile(temporary, text, { mode: 0o600 });
  try {
    await link(temporary, path);
    return text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFile(path, 'utf8');
  } finally {
    await unlink(temporary);
  }
}
