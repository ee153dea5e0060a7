// The built service as a child process (`dist/src/main.js`, what `npm start` runs; `npm test`
// builds first), with its JSON log lines and stderr collected for assertions.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'src', 'main.js');

export type LogLine = Record<string, unknown>;

export interface ServiceProcess {
  child: ChildProcess;
  lines: LogLine[];
  stderr: string[];
  exited: Promise<number | null>;
  /** Resolves with the first log line with this `msg`, or for which `match` holds. */
  waitForLog(match: string | ((line: LogLine) => boolean)): Promise<LogLine>;
}

/** Fails the suite early, with the command to run, when the build is missing. */
export function assertServiceBuilt(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` (npm test does) before this suite`);
}

/**
 * Starts the service with exactly `env` (plus PATH), in the temporary directory: it reads a `.env`
 * of its working directory, and a developer's own in the checkout must not change a test's set-up.
 */
export function runService(args: string[], env: Record<string, string>, options: { ownNetwork?: boolean } = {}): ServiceProcess {
  const command = [process.execPath, MAIN, ...args];
  // ownNetwork: a network namespace of its own with only loopback up, where nothing answers
  // (unshare and sh exec in turn, so the child is node itself and gets the signals).
  const [file, ...rest] = options.ownNetwork === true ? ['unshare', '--net', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', ...command] : command;
  const child = spawn(file!, rest, {
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  const stderr: string[] = [];
  const waiters: Array<{ match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as LogLine;
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.match(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  createInterface({ input: child.stderr! }).on('line', (text) => stderr.push(text));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr,
    exited,
    waitForLog: (wanted) =>
      new Promise((resolve, reject) => {
        const match = typeof wanted === 'string' ? (line: LogLine) => line.msg === wanted : wanted;
        const seen = lines.find(match);
        if (seen) return resolve(seen);
        waiters.push({ match, resolve });
        void exited.then((code) => reject(new Error(`service exited (${code}) first; stderr: ${stderr.join(' | ')}`)));
      }),
  };
}
