import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, unknownNameWarnings, withEnvFile } from '../index.js';

describe('withEnvFile', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'pe-env-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('reads .env of the directory, and the environment wins over it', async () => {
    await writeFile(join(directory, '.env'), '# shared settings\nDATA_DIR=/srv/policy\nPORT=9090\nREDIS_KEY_PREFIX="team-a"\n');
    const { env, envFile } = withEnvFile({ PORT: '8081', HOME: '/root', DATA_DIR: '' }, directory);
    expect(envFile).toBe(join(directory, '.env'));
    expect(env).toMatchObject({ DATA_DIR: '/srv/policy', PORT: '8081', REDIS_KEY_PREFIX: 'team-a', HOME: '/root' });
    expect(loadConfig(env)).toMatchObject({ DATA_DIR: '/srv/policy', PORT: 8081, REDIS_KEY_PREFIX: 'team-a' });
  });

  it('is the environment alone when there is no .env', () => {
    const env = { PORT: '1' };
    expect(withEnvFile(env, directory)).toEqual({ env, envFile: null, unknownNames: [] });
  });

  it('reads the first setting of a file that starts with a byte order mark', async () => {
    await writeFile(join(directory, '.env'), '\uFEFFJWT_DEVELOPMENT_TOKENS=false\nPORT=9\n');
    expect(withEnvFile({}, directory).env).toMatchObject({ JWT_DEVELOPMENT_TOKENS: 'false', PORT: '9' });
  });

  it('names what it does not know, so a misspelt setting is seen', async () => {
    await writeFile(join(directory, '.env'), 'JWT_DEVELOPMENT_TOKEN=false\nPORT=9\n');
    const environment = withEnvFile({}, directory);
    expect(environment.unknownNames).toEqual(['JWT_DEVELOPMENT_TOKEN']);
    expect(unknownNameWarnings(environment)).toEqual([`${join(directory, '.env')}: \`JWT_DEVELOPMENT_TOKEN\` is not a setting of this service and is ignored (misspelt?)`]);
  });

  it('refuses a .env that every user may write', async () => {
    await writeFile(join(directory, '.env'), 'PORT=9\n');
    await chmod(join(directory, '.env'), 0o666);
    expect(() => withEnvFile({}, directory)).toThrow(/writable by every user/);
  });

  it('reports a .env it cannot read as a configuration error', async () => {
    await mkdir(join(directory, '.env'));
    expect(() => withEnvFile({}, directory)).toThrow(ConfigError);
  });
});
