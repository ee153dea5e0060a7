// vitest's global setup: with REDIS_URL not set and no Redis on the default address, the suites
// run against a private redis-server (when one is on PATH), as `npm start` does; the forks inherit
// its address through REDIS_URL. Without redis-server the suites fail naming Redis.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_REDIS_URL } from '../../src/config/index.js';
import { privateRedisIfNoneAnswers } from '../../src/service/index.js';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.REDIS_URL !== undefined) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'policy-engine-test-redis-'));
  const redis = await privateRedisIfNoneAnswers(DEFAULT_REDIS_URL, dir);
  if (redis === null) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  process.env.REDIS_URL = redis.url;
  process.stdout.write(`No Redis answered at ${DEFAULT_REDIS_URL}: the tests use a private redis-server at ${redis.url} (files in ${dir}), stopped when they end.\n`);
  return async () => {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
