// `npm start` and `npm test` on a machine where no Redis answers: each process runs in a network
// namespace of its own (only loopback, nothing listening), as a fresh machine would be.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertServiceBuilt, MAIN, runService, type ServiceProcess } from '../support/service-process.js';

const PROJECT_ROOT = join(MAIN, '..', '..', '..');
const NOT_REACHABLE = /^redis is not reachable at redis:\/\/127\.0\.0\.1:6379 \(.*\): start it with `redis-server` or set REDIS_URL$/;

function alive(pid: number): boolean {
  return existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
}

function redisPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'redis', 'redis.pid'), 'utf8').trim());
}

/** GET on the service from inside its network namespace. */
function readyzInside(service: ServiceProcess): { status: number; body: string } {
  const api = service.lines.find((line) => line.msg === 'api listening')!;
  const script = `fetch('http://127.0.0.1:${api.port as number}/readyz').then(async (r) => process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() })))`;
  const out = execFileSync('nsenter', [`--net=/proc/${service.child.pid}/ns/net`, process.execPath, '-e', script], { encoding: 'utf8' });
  return JSON.parse(out) as { status: number; body: string };
}

/** A PATH with what the namespace needs (unshare, sh, ip) and no redis-server. */
function pathWithoutRedisServer(): string {
  const bin = mkdtempSync(join(tmpdir(), 'pe-bin-'));
  for (const tool of ['unshare', 'sh', 'ip']) symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
  return bin;
}

describe('npm start where no Redis answers', () => {
  let dataDir: string;
  let running: ServiceProcess | undefined;
  beforeAll(assertServiceBuilt);
  afterEach(async () => {
    if (running?.child.exitCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
    running = undefined;
    // A server a killed service left behind.
    if (existsSync(join(dataDir, 'redis', 'redis.pid'))) {
      const pid = redisPid(dataDir);
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    await rm(dataDir, { recursive: true, force: true });
  });
  const start = async (env: Record<string, string> = {}, args: string[] = []) => {
    running = runService(args, { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env }, { ownNetwork: true });
    return running;
  };
  const newDataDir = async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pe-private-redis-'));
  };

  it('starts a private redis-server with its files under DATA_DIR, says so, and stops it with the service', async () => {
    await newDataDir();
    const service = await start();
    await service.waitForLog('service started');
    const dir = join(dataDir, 'redis');
    expect(service.stderr[0]).toContain(`(a private redis-server started because none answered, its files in ${dir}; it stops with the service)`);
    expect(service.stderr[0]).toMatch(/Redis redis:\/\/127\.0\.0\.1:\d+ /);
    expect(readyzInside(service)).toMatchObject({ status: 200 });
    const pid = redisPid(dataDir);
    expect(alive(pid)).toBe(true);
    expect(existsSync(join(dir, 'appendonlydir'))).toBe(true);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(service.lines.some((line) => line.msg === 'stopped')).toBe(true);
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  }, 90_000);

  it('stops a server left by a killed service before it starts its own on the same files, DATA_DIR relative', async () => {
    await newDataDir();
    // The service runs in the temporary directory: DATA_DIR relative to it, as `./data` is by default.
    const relative = { DATA_DIR: basename(dataDir) };
    const first = await start(relative);
    await first.waitForLog('service started');
    const leftover = redisPid(dataDir);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(alive(leftover)).toBe(true);

    const second = await start(relative);
    await second.waitForLog('service started');
    expect(second.stderr[0]).toContain(`its files in ${join(dataDir, 'redis')};`);
    expect(alive(leftover)).toBe(false);
    expect(redisPid(dataDir)).not.toBe(leftover);
    expect(readyzInside(second)).toMatchObject({ status: 200 });
  }, 90_000);

  it('stops its Redis when a signal ends it before it is up', async () => {
    await newDataDir();
    const service = await start();
    // The pid file appears once redis-server runs, before the service has opened its store.
    await expect.poll(() => existsSync(join(dataDir, 'redis', 'redis.pid')) && redisPid(dataDir) > 0, { timeout: 10_000, interval: 10 }).toBe(true);
    const pid = redisPid(dataDir);
    expect(alive(pid)).toBe(true);
    service.child.kill('SIGTERM');
    const code = await service.exited;
    if (!service.lines.some((line) => line.msg === 'service started')) expect(code).toBe(128 + 15);
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  }, 60_000);

  it('leaves a running service its Redis: a second one on the same DATA_DIR stops, saying why', async () => {
    await newDataDir();
    const first = await start();
    await first.waitForLog('service started');
    const firstRedis = redisPid(dataDir);
    const second = runService([], { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' }, { ownNetwork: true });
    try {
      expect(await second.exited).toBe(1);
      expect(second.stderr).toEqual([
        `the private redis-server in ${join(dataDir, 'redis')} belongs to another service process (pid ${first.child.pid}) on the same DATA_DIR: stop that one, or give this one its own DATA_DIR or a REDIS_URL`,
      ]);
      expect(alive(firstRedis)).toBe(true);
      expect(readyzInside(first)).toMatchObject({ status: 200 });
    } finally {
      if (second.child.exitCode === null) second.child.kill('SIGKILL');
    }
  }, 90_000);

  it('never replaces a configured REDIS_URL, even one that names the default address', async () => {
    await newDataDir();
    const service = await start({ REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(await service.exited).toBe(1);
    expect(service.stderr).toEqual([expect.stringMatching(NOT_REACHABLE)]);
    expect(existsSync(join(dataDir, 'redis'))).toBe(false);
  }, 60_000);

  it('stops with the line naming Redis when no redis-server is on PATH', async () => {
    await newDataDir();
    const bin = pathWithoutRedisServer();
    try {
      const service = await start({ PATH: bin });
      expect(await service.exited).toBe(1);
      expect(service.stderr).toEqual([expect.stringMatching(NOT_REACHABLE)]);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 60_000);

  it('brings no Redis of its own in a single role: an api and a worker started apart would never meet', async () => {
    await newDataDir();
    const service = await start({}, ['--role', 'api']);
    expect(await service.exited).toBe(1);
    expect(service.stderr).toEqual([expect.stringMatching(NOT_REACHABLE)]);
    expect(existsSync(join(dataDir, 'redis'))).toBe(false);
  }, 60_000);
});

describe('npm test where no Redis answers', () => {
  it('runs the suites against a private redis-server and stops it when they end', async () => {
    const env: Record<string, string | undefined> = { ...process.env, CI: undefined, REDIS_URL: undefined, MONGODB_URL: undefined };
    const child = spawn(
      'unshare',
      ['--net', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', process.execPath, join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'test/vitest.config.ts', 'test/integration/redis-reachable.test.ts'],
      { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, out).toBe(0);
    const notice = /the tests use a private redis-server at (redis:\/\/127\.0\.0\.1:\d+) \(files in (\S+)\)/.exec(out);
    expect(notice, out).not.toBeNull();
    expect(out).toContain(`redis of this run: ${notice![1]}`);
    expect(existsSync(notice![2]!)).toBe(false);
  }, 120_000);
});
