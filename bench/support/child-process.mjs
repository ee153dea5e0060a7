// Child processes of a benchmark run: started from the project root with only PATH inherited, their
// output kept for the error that reports a failed start or stop.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A TCP port free on 127.0.0.1 at the time of asking. */
export async function unusedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `node <args>` with exactly `env` (plus PATH). */
export function startChild(args, env) {
  const child = spawn(process.execPath, args, { cwd: projectRoot, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, exited, output: () => output };
}

/** SIGTERM, then insists on a clean exit. */
export async function stopChild(running) {
  running.child.kill('SIGTERM');
  const code = await running.exited;
  if (code !== 0) throw new Error(`process exited with ${code}:\n${running.output()}`);
}

/** Polls `${base}/readyz` until it answers 200 (30 s at most). */
export async function waitForReady(base, running) {
  for (let i = 0; i < 300; i++) {
    if (running.child.exitCode !== null) throw new Error(`service exited during start-up:\n${running.output()}`);
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`service did not become ready:\n${running.output()}`);
}
