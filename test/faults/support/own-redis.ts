// A redis-server of a fault test's own, on a free loopback port, which the test may stop and start
// again — keeping its data (append-only file, fsync on every write) or coming back empty.
import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { launchRedisServer, unusedPort } from '../../support/index.js';
import { stopProcess } from './stop-process.js';

export interface OwnRedis {
  readonly url: string;
  /** Kills the server (SIGKILL: nothing is flushed that was not already on disk). */
  stop(): Promise<void>;
  /** Starts it again; `keepData: false` removes its files first, so it comes back empty. */
  start(options: { keepData: boolean }): Promise<void>;
  running(): boolean;
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  return launchRedisServer(['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir]);
}

export async function startOwnRedis(dir: string): Promise<OwnRedis> {
  const port = await unusedPort();
  let server: ChildProcess | null = await launch(port, dir);
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (server) await stopProcess(server, 'SIGKILL');
      server = null;
    },
    async start({ keepData }) {
      if (server) throw new Error('redis-server is already running');
      if (!keepData) await rm(join(dir, 'appendonlydir'), { recursive: true, force: true });
      server = await launch(port, dir);
    },
    running: () => server !== null,
  };
}
