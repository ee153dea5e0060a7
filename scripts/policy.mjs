#!/usr/bin/env node
// The `policy` command (check, eval, fmt). Runs the compiled CLI, building it first when absent.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'src', 'cli', 'main.js');
if (!existsSync(entry)) {
  execFileSync('npx', ['tsc', '-p', join(root, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
