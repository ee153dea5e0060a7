// Installs a benchmark folder's own packages on first use, so the product's install stays lean.
// `npm install` rather than `npm ci`: the lock holds the versions, but npm ci also demands lock
// entries for other platforms' optional binaries, which the registry reachable here does not carry.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** Ensures every named package is installed under `dir`; exits the process with a clear line if not. */
export function ensurePackages(dir, names) {
  const installed = names.every((name) => existsSync(join(dir, 'node_modules', ...name.split('/'), 'package.json')));
  if (installed) return;
  console.log(`installing ${names.join(', ')} in ${dir} ...`);
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`could not install ${names.join(', ')} in ${dir}`);
    process.exit(result.status || 1);
  }
}
