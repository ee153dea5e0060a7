// A FerretDB (MongoDB wire protocol, SQLite underneath) of a fault test's own, on a free loopback
// port, which the test may kill and start again on the same files. CI installs the binary.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { unusedPort } from '../../support/index.js';
import { stopProcess } from './stop-process.js';

export interface OwnFerretDb {
  readonly url: string;
  /** Kills the server (SIGKILL); its files stay. */
  stop(): Promise<void>;
  /** Starts it again on the same files and waits until it answers. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers, as with a frozen host or a partition. */
  freeze(): void;
  /** SIGCONT after freeze(). */
  thaw(): void;
}

function ferretDbBinary(): string {
  if (process.env.FERRETDB_BIN) return process.env.FERRETDB_BIN;
  let gopath = join(homedir(), 'go');
  try {
    gopath = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim() || gopath;
  } catch {
    // No Go toolchain: the default GOPATH is the only guess.
  }
  const binary = join(gopath, 'bin', 'ferretdb');
  if (!existsSync(binary)) throw new Error(`FerretDB is not installed at ${binary}: run \`bash .ci/install-ferretdb.sh\` (or set FERRETDB_BIN)`);
  return binary;
}

async function answers(url: string): Promise<boolean> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 500, connectTimeoutMS: 500 });
  try {
    await client.db('admin').command({ ping: 1 });
    return true;
  } catch {
    return false;
  } finally {
    await client.close();
  }
}

export async function startOwnFerretDb(dir: string): Promise<OwnFerretDb> {
  const binary = ferretDbBinary();
  const port = await unusedPort();
  const url = `mongodb://127.0.0.1:${port}/`;
  await mkdir(dir, { recursive: true });
  let server: ChildProcess | null = null;

  async function start(): Promise<void> {
    if (server) throw new Error('FerretDB is already running');
    const args = [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--state-dir=${dir}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=127.0.0.1:0',
      '--telemetry=disable',
      '--log-level=error',
    ];
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    server = child;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (child.exitCode !== null) throw new Error(`FerretDB exited (${child.exitCode}): ${stderr}`);
      if (await answers(url)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`FerretDB did not answer on ${url}: ${stderr}`);
  }

  await start();
  return {
    url,
    async stop() {
      if (server) await stopProcess(server, 'SIGKILL');
      server = null;
    },
    start,
    freeze: () => void server?.kill('SIGSTOP'),
    thaw: () => void server?.kill('SIGCONT'),
  };
}
