import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JWT_KEY_FILE_NAME, loadJwtKeyRing } from '../index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pe-keys-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadJwtKeyRing', () => {
  it('uses JWT_KEYS when given, first key signing, and writes no file', async () => {
    const ring = await loadJwtKeyRing({
      jwtKeys: [
        { kid: 'new', secret: 'n'.repeat(32) },
        { kid: 'old', secret: 'o'.repeat(32) },
      ],
      dataDir: dir,
    });
    expect(ring.signingKey.kid).toBe('new');
    expect([...ring.keys.keys()]).toEqual(['new', 'old']);
    expect(ring.source).toBe('JWT_KEYS');
    await expect(stat(join(dir, JWT_KEY_FILE_NAME))).rejects.toThrow(/ENOENT/);
  });

  it('creates a private key file under the data directory on first use and keeps it', async () => {
    const nested = join(dir, 'data');
    const first = await loadJwtKeyRing({ dataDir: nested });
    const path = join(nested, JWT_KEY_FILE_NAME);
    expect(first.source).toBe(path);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const second = await loadJwtKeyRing({ dataDir: nested });
    expect(second.signingKey.kid).toBe(first.signingKey.kid);
    expect(Buffer.from(second.signingKey.secret).equals(Buffer.from(first.signingKey.secret))).toBe(true);
    expect(first.signingKey.secret.length).toBeGreaterThanOrEqual(32);
  });

  it('gives processes starting together one shared key', async () => {
    const rings = await Promise.all(Array.from({ length: 8 }, () => loadJwtKeyRing({ dataDir: dir })));
    expect(new Set(rings.map((r) => r.signingKey.kid)).size).toBe(1);
    const file = JSON.parse(await readFile(join(dir, JWT_KEY_FILE_NAME), 'utf8')) as { keys: unknown[] };
    expect(file.keys).toHaveLength(1);
  });

  it('refuses a damaged key file, naming it', async () => {
    await writeFile(join(dir, JWT_KEY_FILE_NAME), '{"keys":[{"kid":"k","secret":"short"}]}');
    await expect(loadJwtKeyRing({ dataDir: dir })).rejects.toThrow(/jwt-keys\.json is unusable: .*at least 32/);
  });
});
