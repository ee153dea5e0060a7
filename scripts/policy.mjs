#!/usr/bin/env node
// The `policy` command (check, eval, fmt, test, deploy, lsp). Runs the compiled CLI, building it first when a source changed.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'src', 'cli', 'main.js');
try {
  // The build's output goes to standard error: standard output is the command's own (`policy lsp` speaks LSP on it).
  execFileSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { cwd: root, stdio: ['inherit', 2, 'inherit'] });
} catch {
  process.exit(1); // the compiler has printed why
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
