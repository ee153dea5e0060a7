// Fault: Redis goes away and then the service is told to stop. The queue workers cannot finish
// their close without Redis; the stop leaves such a part behind after its bound, names it, and the
// process ends (exit 1) instead of waiting for a Redis that may never come back.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertServiceBuilt, runService, type ServiceProcess } from '../support/index.js';
import { startOwnRedis, type OwnRedis } from './support/own-redis.js';

describe('stopping while Redis is away', () => {
  let dir: string;
  let redis: OwnRedis;
  let service: ServiceProcess;

  beforeAll(async () => {
    assertServiceBuilt();
    dir = await mkdtemp(join(tmpdir(), 'pe-fault-stop-'));
    redis = await startOwnRedis(dir);
    const env = { DATA_DIR: dir, REDIS_URL: redis.url, REDIS_KEY_PREFIX: `fault-${randomUUID()}`, HOST: '127.0.0.1', PORT: '0', SHUTDOWN_GRACE_SECONDS: '1' };
    service = runService([], env);
    await service.waitForLog('service started');
  }, 60_000);

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    if (redis?.running()) await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('ends the process, naming the parts it left behind, when Redis never answers again', async () => {
    await redis.stop();
    await service.waitForLog('redis connection error');
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(1);
    const leftBehind = service.lines.filter((line) => line.msg === 'part did not stop in time: left behind').map((line) => line.part);
    expect(leftBehind.length).toBeGreaterThan(0);
    const failed = service.lines.find((line) => line.msg === 'shutdown failed');
    expect((failed?.err as { message?: string } | undefined)?.message).toBe(`did not stop within 6 s each: ${leftBehind.join(', ')}`);
  }, 90_000);
});
