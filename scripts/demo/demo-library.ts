/**
 * The demo's policy modules: `examples/demo/<file>.policy` with the `<file>.tests.json` beside it,
 * read from the source tree at run time (the build compiles TypeScript only).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from '../cli-io.js';

export interface DemoVersion {
  /** The file name without `.policy`. */
  file: string;
  source: string;
  /** The content of `<file>.tests.json`: the cases the service runs before it stores the version. */
  tests: unknown;
}

export interface DemoModule {
  policyModule: string;
  /** Deployed in this order; the last one is the module's active version. */
  versions: DemoVersion[];
}

/** Each module's files, oldest version first. */
const DEMO_FILES: ReadonlyArray<{ policyModule: string; files: readonly string[] }> = [
  // Version 1 stays in use by pinned clients after version 2, which fails for some applicants, replaced it.
  { policyModule: 'lending.demo', files: ['lending.demo.1', 'lending.demo.2'] },
  { policyModule: 'healthcare.demo', files: ['healthcare.demo'] },
  { policyModule: 'insurance.demo', files: ['insurance.demo'] },
];

/** `examples/demo` under the package root, found by walking up to `package.json` (from `scripts/demo` or `dist/scripts/demo`). */
export function demoDirectory(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'examples', 'demo');
    if (dirname(dir) === dir) throw new CliError('cannot find the package root (no package.json above the demo script)');
  }
}

async function readVersion(directory: string, file: string): Promise<DemoVersion> {
  try {
    const source = await readFile(join(directory, `${file}.policy`), 'utf8');
    const tests = JSON.parse(await readFile(join(directory, `${file}.tests.json`), 'utf8')) as unknown;
    return { file, source, tests };
  } catch (error) {
    throw new CliError(`cannot read the demo module ${file} in ${directory}: ${(error as Error).message}`);
  }
}

export async function loadDemoModules(directory: string = demoDirectory()): Promise<DemoModule[]> {
  return Promise.all(
    DEMO_FILES.map(async ({ policyModule, files }) => ({
      policyModule,
      versions: await Promise.all(files.map((file) => readVersion(directory, file))),
    })),
  );
}
