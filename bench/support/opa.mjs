// OPA, the performance peer: its REST server serving bench/peers/opa/loan.rego. The binary is
// installed on demand with the Go toolchain (`go install`), as CI installs FerretDB.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot, unusedPort } from './child-process.mjs';

export const OPA_VERSION = 'v1.22.2';
export const OPA_POLICY = join(projectRoot, 'bench', 'peers', 'opa', 'loan.rego');
export const OPA_DECISION_PATH = '/v1/data/bench/loan/price';

function goBinDir() {
  const found = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' });
  return found.status === 0 ? join(found.stdout.trim(), 'bin') : null;
}

function hasVersion(binary) {
  const found = spawnSync(binary, ['version'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.includes(`Version: ${OPA_VERSION.slice(1)}`);
}

/** The path of OPA OPA_VERSION, installing it when `install` allows; null when absent and not installed. */
export function opaBinary({ install }) {
  const dir = goBinDir();
  if (dir === null) {
    if (install) throw new Error('the Go toolchain (`go`) is needed to install OPA');
    return null;
  }
  const binary = join(dir, 'opa');
  if (existsSync(binary) && hasVersion(binary)) return binary;
  if (!install) return null;
  console.log(`installing OPA ${OPA_VERSION} with go install (once)`);
  const result = spawnSync('go', ['install', `github.com/open-policy-agent/opa@${OPA_VERSION}`], { stdio: 'inherit' });
  if (result.status !== 0 || !hasVersion(binary)) throw new Error(`go install of OPA ${OPA_VERSION} failed`);
  return binary;
}

/** `opa run --server` on a free port; decision logs, when asked for, go to its console (discarded). */
export async function startOpa(binary, { decisionLogs }) {
  const port = await unusedPort();
  const args = ['run', '--server', '--addr', `127.0.0.1:${port}`, '--log-level', 'error', ...(decisionLogs ? ['--set', 'decision_logs.console=true'] : []), OPA_POLICY];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i += 1) {
    if (child.exitCode !== null) throw new Error(`opa exited during start-up: ${errors}`);
    try {
      if ((await fetch(`${base}/health`)).status === 200) return { child, exited, base };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`opa did not become ready: ${errors}`);
}

export async function stopOpa(running) {
  running.child.kill('SIGTERM');
  await running.exited;
}
