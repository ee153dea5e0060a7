#!/usr/bin/env node
// Compiles the service and the TypeScript client package (tsc) only when a source file changed since the last build: npm start and
// the scripts run this before node, so they answer in about a second once built. "Changed" is by
// modification time, against a stamp written after each successful build (tsc leaves its own
// build info untouched when a touched file compiles to the same output).
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
const INPUTS = ['src', 'workers', 'scripts', 'tsconfig.json', 'package.json', 'package-lock.json', 'clients/typescript/src', 'clients/typescript/tsconfig.json'];
// The service, and the client package the snippets of docs/api.md import (clients/typescript/dist).
const PROJECTS = ['tsconfig.json', 'clients/typescript/tsconfig.json'];

function newestMtime(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function builtAt() {
  try {
    return statSync(stamp).mtimeMs;
  } catch {
    return -1;
  }
}

// --force builds whatever the times say (npm run build).
// A build whose outputs were removed since is no build.
const OUTPUTS = ['dist/src/main.js', 'dist/src/cli/main.js', 'dist/scripts/token.js', 'dist/workers/evaluation-thread.js', 'clients/typescript/dist/index.js'];
const outputsMissing = OUTPUTS.some((output) => newestMtime(join(root, output)) === 0);
const built = process.argv.includes('--force') || outputsMissing ? -1 : builtAt();
if (built < 0 || INPUTS.some((input) => newestMtime(join(root, input)) > built)) {
  if (!process.argv.includes('--force')) process.stderr.write(built < 0 ? 'building the service (first run) …\n' : 'sources changed: rebuilding …\n');
  const startedAt = new Date();
  try {
    for (const project of PROJECTS) {
      execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, project)], { cwd: root, stdio: 'inherit' });
    }
  } catch {
    process.exit(1); // tsc has printed why
  }
  // Stamped with the time the build started: a file saved during the build counts as changed.
  writeFileSync(stamp, `${startedAt.toISOString()}\n`);
  utimesSync(stamp, startedAt, startedAt);
}
