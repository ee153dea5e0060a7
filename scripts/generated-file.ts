/**
 * A file of the repository that the code generates: `npm run -s <script>` rewrites it, `-- --check`
 * only compares and exits 1 when it is out of date (the test suite compares too).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, createProgram, runProgram, type CliIo } from './cli-io.js';

// This file runs from scripts/ (tests) or dist/scripts/ (npm scripts).
const here = dirname(fileURLToPath(import.meta.url));
const REPOSITORY_ROOT = join(here, ...(here.includes(join('dist', 'scripts')) ? ['..', '..'] : ['..']));

/** The absolute path of a file given relative to the repository root. */
export const repositoryPath = (path: string): string => join(REPOSITORY_ROOT, path);

export interface GeneratedFile {
  /** The npm script that regenerates it. */
  readonly script: string;
  /** Its path from the repository root. */
  readonly path: string;
  /** What `--help` says the script does. */
  readonly description: string;
  /** The content the code makes of it, given its current content ('' when it does not exist). */
  render(current: string): string;
}

export async function runGeneratedFileCli(file: GeneratedFile, argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram(file.script, io)
    .description(file.description)
    .option('--check', 'change nothing; exit 1 when the file is out of date')
    .action((options: { check?: boolean }) => {
      const absolute = repositoryPath(file.path);
      // A missing file is out of date, whatever its rendering.
      const current = existsSync(absolute) ? readFileSync(absolute, 'utf8') : null;
      const rendered = file.render(current ?? '');
      if (rendered === current) {
        io.out(`${file.path} is up to date`);
        return;
      }
      if (options.check) throw new CliError(`${file.path} is out of date: run \`npm run -s ${file.script}\``);
      writeFileSync(absolute, rendered);
      io.out(`${file.path} regenerated`);
    });
  return runProgram(program, argv, io);
}
