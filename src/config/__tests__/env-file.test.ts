import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, withEnvFile } from '../index.js';

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
    expect(withEnvFile(env, directory)).toEqual({ env, envFile: null });
  });

  it('reports a .env it cannot read as a configuration error', async () => {
    await mkdir(join(directory, '.env'));
    expect(() => withEnvFile({}, directory)).toThrow(ConfigError);
  });
});
