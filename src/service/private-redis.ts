/**
 * A private `redis-server` for a first run on a machine where none answers: `npm start` (role
 * `all`, neither REDIS_URL nor REDIS_CLUSTER_NODES set) and `npm test` start one on a free loopback port instead of stopping
 * at "redis is not reachable". Its files stay under the given directory (append-only, so queued
 * work survives a restart as the embedded store's does); it stops when its owner does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { dirname, join, resolve as absolutePath } from 'node:path';
import { StartupError } from './startup-error.js';

/** The port of a Redis URL that names none, as ioredis reads it. */
const REDIS_PORT = 6379;
const START_TIMEOUT_MS = 5000;
const STOP_TIMEOUT_MS = 5000;

export interface PrivateRedis {
  url: string;
  /** The directory holding its files. */
  dir: string;
  stop(): Promise<void>;
}

/** Whether something accepts connections at host:port (a refused or silent port is "no"). */
function answers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Whether `redis-server` can be run from PATH. */
function redisServerOnPath(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Starts a private redis-server when nothing answers at `url` (the default address: REDIS_URL not
 * set) and one is on PATH; null otherwise (the caller then goes on as if it had not asked, and
 * says what it says without it).
 */
export async function privateRedisIfNoneAnswers(url: string, dir: string): Promise<PrivateRedis | null> {
  const { hostname, port } = new URL(url);
  if (await answers(hostname, Number(port || REDIS_PORT))) return null;
  if (!redisServerOnPath()) return null;
  // Absolute: redis-server enters `--dir` before it writes `--pidfile`, so a relative pid file would be missed.
  return startPrivateRedis(absolutePath(dir));
}

async function startPrivateRedis(dir: string): Promise<PrivateRedis> {
  mkdirSync(dir, { recursive: true });
  const pidFile = join(dir, 'redis.pid');
  // A server left behind by an owner that was killed would share these files: stop it first.
  await stopLeftover(pidFile);
  const port = await freeLoopbackPort();
  const child = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--pidfile', pidFile, '--appendonly', 'yes', '--save', '', '--protected-mode', 'yes'],
    // Its own process group: a Ctrl-C reaches the service, which stops it after its own graceful
    // stop (that still needs Redis), not both at once.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A spawn that fails (the program gone since it was found) is told by exitCode below, not thrown.
  child.on('error', (error) => (stderr ||= error.message));
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers('127.0.0.1', port, 200))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      process.removeListener('exit', killOnExit);
      throw new StartupError(`a private redis-server could not be started in ${dir} (${stderr.trim() || `no answer on port ${port}`}): start one with \`redis-server\` or set REDIS_URL`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    dir,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
    },
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function stopLeftover(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isRedisServer(pid)) return;
  // Its owner still runs (a killed one leaves it to init or a subreaper): a second service on the
  // same DATA_DIR must not take the first one's Redis away.
  const owner = parentOf(pid);
  if (owner !== null && runsThisRuntime(owner)) {
    throw new StartupError(`the private redis-server in ${dirname(pidFile)} belongs to another service process (pid ${owner}) on the same DATA_DIR: stop that one, or give this one its own DATA_DIR or a REDIS_URL`);
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isRedisServer(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (isRedisServer(pid)) process.kill(pid, 'SIGKILL');
}

function isRedisServer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('redis-server');
  } catch {
    return false;
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (name) state ppid …`: the name may hold spaces and parentheses, so read after the last `)`.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Whether the process runs the same node as this one (another service, not init or a subreaper). */
function runsThisRuntime(pid: number): boolean {
  try {
    return readlinkSync(`/proc/${pid}/exe`) === realpathSync(process.execPath);
  } catch {
    return false;
  }
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
