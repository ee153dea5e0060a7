import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { MongoClient } from 'mongodb';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../scripts/cli-io.js';
import { runTenantCli } from '../../scripts/tenant.js';
import { runTokenCli } from '../../scripts/token.js';
import { createTokenVerifier, JWT_KEY_FILE_NAME, loadJwtKeyRing } from '../../src/auth/index.js';
import { loadConfig, storeLocation } from '../../src/config/index.js';
import { openStore } from '../../src/store/index.js';
import { describeWithMongo } from '../support/mongo-env.js';

interface Captured extends CliIo {
  stdout: string[];
  stderr: string[];
}

function io(env: Record<string, string>): Captured {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { env, stdout, stderr, out: (line) => stdout.push(line), err: (line) => stderr.push(line) };
}

async function activeVersions(env: Record<string, string>, tenantId: string) {
  const store = await openStore(storeLocation(loadConfig(env)));
  try {
    return await store.tenants.activeSecrets(tenantId);
  } finally {
    await store.close();
  }
}

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pe-cli-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm run token', () => {
  it('prints only a token that the service verifies, creating the key file on first use, and names the key on stderr', async () => {
    const run = io({ DATA_DIR: dataDir });
    const code = await runTokenCli(['--tenant', 'acme', '--role', 'ADMIN', '--sub', 'alice', '--ttl', '15m'], run);
    expect(code).toBe(0);
    expect(run.stdout).toHaveLength(1);
    const token = run.stdout[0]!;

    const keyFile = JSON.parse(await readFile(join(dataDir, JWT_KEY_FILE_NAME), 'utf8')) as { keys: Array<{ kid: string }> };
    expect(run.stderr).toEqual([
      `signed with key \`${keyFile.keys[0]!.kid}\` of ${join(dataDir, JWT_KEY_FILE_NAME)}: the service must run with the same DATA_DIR or JWT_KEYS`,
    ]);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'HS256', kid: keyFile.keys[0]!.kid });
    const claims = decodeJwt(token);
    expect(claims.exp! - claims.iat!).toBe(900);

    const verifier = createTokenVerifier(await loadJwtKeyRing({ dataDir }));
    expect(await verifier.verify(token)).toEqual({ subject: 'alice', tenantId: 'acme', role: 'ADMIN', authMethod: 'bearer', acceptedUntil: claims.exp! + 5 }); // the default clock tolerance
  });

  it('reuses the key file, so later tokens verify with the same key', async () => {
    const first = io({ DATA_DIR: dataDir });
    const second = io({ DATA_DIR: dataDir });
    await runTokenCli(['--tenant', 'acme', '--role', 'VIEWER'], first);
    await runTokenCli(['--tenant', 'acme', '--role', 'OWNER'], second);
    const verifier = createTokenVerifier(await loadJwtKeyRing({ dataDir }));
    expect((await verifier.verify(first.stdout[0]!)).role).toBe('VIEWER');
    expect((await verifier.verify(second.stdout[0]!)).role).toBe('OWNER');
    expect(decodeJwt(first.stdout[0]!).sub).toBe('dev');
  });

  it('signs with the first key of JWT_KEYS when set', async () => {
    const env = { DATA_DIR: dataDir, JWT_KEYS: `k2:${'b'.repeat(40)},k1:${'a'.repeat(40)}` };
    const run = io(env);
    expect(await runTokenCli(['--tenant', 'acme', '--role', 'member'], run)).toBe(0);
    expect(decodeProtectedHeader(run.stdout[0]!).kid).toBe('k2');
    const ring = await loadJwtKeyRing({ jwtKeys: loadConfig(env).JWT_KEYS, dataDir });
    expect((await createTokenVerifier(ring).verify(run.stdout[0]!)).role).toBe('MEMBER');
  });

  it.each([
    [['--role', 'ADMIN'], '--tenant'],
    [['--tenant', 'acme'], '--role'],
    [['--tenant', 'acme', '--role', 'ROOT'], 'VIEWER, MEMBER, ADMIN, OWNER'],
    [['--tenant', 'not valid', '--role', 'ADMIN'], 'letters, digits'],
    [['--tenant', 'acme', '--role', 'ADMIN', '--ttl', 'forever'], '1h'],
    [['--tenant', 'acme', '--role', 'ADMIN', '--ttl', '90d'], 'exceeds the longest token lifetime the service accepts, 1d (JWT_MAX_LIFETIME_SECONDS=86400)'],
    [['--tenant', 'acme', '--role', 'ADMIN', '--ttl', '25h'], 'JWT_MAX_LIFETIME_SECONDS'],
  ])('exits 1 with a clear message for %j', async (argv, fragment) => {
    const run = io({ DATA_DIR: dataDir });
    expect(await runTokenCli(argv, run)).toBe(1);
    expect(run.stdout).toEqual([]);
    expect(run.stderr.join('\n')).toContain(fragment);
  });

  it('mints tokens with iat within JWT_MAX_LIFETIME_SECONDS, which the service accepts', async () => {
    const full = io({ DATA_DIR: dataDir });
    expect(await runTokenCli(['--tenant', 'acme', '--role', 'ADMIN', '--ttl', '24h'], full)).toBe(0);
    const claims = decodeJwt(full.stdout[0]!);
    expect(claims.iat).toBeTypeOf('number');
    expect(claims.exp! - claims.iat!).toBe(86_400);
    const verifier = createTokenVerifier(await loadJwtKeyRing({ dataDir }));
    expect((await verifier.verify(full.stdout[0]!)).role).toBe('ADMIN');

    // A lower maximum lowers the default lifetime with it and refuses more.
    const short = io({ DATA_DIR: dataDir, JWT_MAX_LIFETIME_SECONDS: '600' });
    expect(await runTokenCli(['--tenant', 'acme', '--role', 'ADMIN'], short)).toBe(0);
    const shortClaims = decodeJwt(short.stdout[0]!);
    expect(shortClaims.exp! - shortClaims.iat!).toBe(600);
    const refused = io({ DATA_DIR: dataDir, JWT_MAX_LIFETIME_SECONDS: '600' });
    expect(await runTokenCli(['--tenant', 'acme', '--role', 'ADMIN', '--ttl', '11m'], refused)).toBe(1);
    expect(refused.stderr.join('\n')).toContain('--ttl 11m exceeds the longest token lifetime the service accepts, 10m');
  });

  it('refuses a subject that reads as an actor the service names itself', async () => {
    const run = io({ DATA_DIR: dataDir });
    expect(await runTokenCli(['--tenant', 'acme', '--role', 'ADMIN', '--sub', 'System:anomaly-detect'], run)).toBe(1);
    expect(run.stderr.join('\n')).toContain('--sub may not start with `signed:`, `gateway:`, `system:` or `workflow:`');
    expect(run.stdout).toEqual([]);
  });

  it('exits 1 naming a bad configuration variable', async () => {
    const run = io({ DATA_DIR: dataDir, JWT_KEYS: 'k1:short' });
    expect(await runTokenCli(['--tenant', 'acme', '--role', 'ADMIN'], run)).toBe(1);
    expect(run.stderr.join('\n')).toContain('JWT_KEYS');
  });
});

function tenantCliSuite(envFor: () => Record<string, string>) {
  it('create prints the signing secret alone on the last line and stores it as version 1', async () => {
    const env = envFor();
    const run = io(env);
    expect(await runTenantCli(['create', 'acme'], run)).toBe(0);
    const secret = run.stdout.at(-1)!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(run.stdout.slice(0, -1).join('\n')).not.toContain(secret);
    expect((await activeVersions(env, 'acme')).map((s) => [s.version, s.secret])).toEqual([[1, secret]]);
  });

  it('create refuses an existing tenant with exit 1 and changes nothing', async () => {
    const env = envFor();
    const first = io(env);
    await runTenantCli(['create', 'acme'], first);
    const again = io(env);
    expect(await runTenantCli(['create', 'acme'], again)).toBe(1);
    expect(again.stderr).toEqual([expect.stringMatching(/^store: (SQLite|MongoDB) at /), 'error: tenant `acme` already exists']);
    expect((await activeVersions(env, 'acme')).map((s) => s.secret)).toEqual([first.stdout.at(-1)]);
  });

  it('rotate adds a secret and keeps only the previous one valid beside it', async () => {
    const env = envFor();
    const created = io(env);
    await runTenantCli(['create', 'acme'], created);
    const v1 = created.stdout.at(-1)!;
    const r2 = io(env);
    expect(await runTenantCli(['rotate', 'acme'], r2)).toBe(0);
    const v2 = r2.stdout.at(-1)!;
    expect(v2).not.toBe(v1);
    expect((await activeVersions(env, 'acme')).map((s) => [s.version, s.secret])).toEqual([
      [2, v2],
      [1, v1],
    ]);
    const r3 = io(env);
    await runTenantCli(['rotate', 'acme'], r3);
    expect((await activeVersions(env, 'acme')).map((s) => [s.version, s.secret])).toEqual([
      [3, r3.stdout.at(-1)],
      [2, v2],
    ]);
  });

  it('create --if-missing and show print the newest secret of an existing tenant, changing nothing', async () => {
    const env = envFor();
    const created = io(env);
    expect(await runTenantCli(['create', 'acme', '--if-missing'], created)).toBe(0);
    const v1 = created.stdout.at(-1)!;
    const again = io(env);
    expect(await runTenantCli(['create', 'acme', '--if-missing'], again)).toBe(0);
    expect(again.stdout.at(-1)).toBe(v1);
    const rotated = io(env);
    await runTenantCli(['rotate', 'acme'], rotated);
    const shown = io(env);
    expect(await runTenantCli(['show', 'acme'], shown)).toBe(0);
    expect(shown.stdout.at(-1)).toBe(rotated.stdout.at(-1));
    expect((await activeVersions(env, 'acme')).map((s) => s.version)).toEqual([2, 1]);
    const ghost = io(env);
    expect(await runTenantCli(['show', 'ghost'], ghost)).toBe(1);
    expect(ghost.stderr.at(-1)).toBe('error: tenant `ghost` does not exist');
  });

  it('rotate exits 1 for an unknown tenant', async () => {
    const run = io(envFor());
    expect(await runTenantCli(['rotate', 'ghost'], run)).toBe(1);
    expect(run.stderr).toEqual([expect.stringMatching(/^store: (SQLite|MongoDB) at /), 'error: tenant `ghost` does not exist']);
    expect(run.stdout).toEqual([]);
  });

  it('exits 1 for an ill-formed tenant id or a missing command', async () => {
    const bad = io(envFor());
    expect(await runTenantCli(['create', 'not valid'], bad)).toBe(1);
    expect(bad.stderr.join('\n')).toContain('letters, digits');
    const none = io(envFor());
    expect(await runTenantCli([], none)).toBe(1);
  });
}

describe('npm run tenant on the embedded SQLite store', () => {
  tenantCliSuite(() => ({ DATA_DIR: dataDir }));

  it('names the store it used on stderr, so a wrong DATA_DIR shows at once', async () => {
    const run = io({ DATA_DIR: dataDir });
    expect(await runTenantCli(['create', 'acme'], run)).toBe(0);
    expect(run.stderr).toEqual([`store: SQLite at ${join(dataDir, 'policy-engine.sqlite')}`]);
  });
});

describeWithMongo('npm run tenant on MongoDB', (url) => {
  const databases: string[] = [];
  afterAll(async () => {
    const client = await MongoClient.connect(url);
    try {
      for (const name of databases) await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
  });
  tenantCliSuite(() => {
    const database = `pe_test_cli_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    databases.push(database);
    return { DATA_DIR: dataDir, MONGODB_URL: url, MONGODB_DATABASE: database };
  });
});
