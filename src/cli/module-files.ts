import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliUsageError } from './cli-io.js';

/** A module's files sit side by side: `<module>.policy` and its cases in `<module>.tests.json`. */
export const POLICY_SUFFIX = '.policy';
export const TEST_FILE_SUFFIX = '.tests.json';
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', 'dist']);

/**
 * The files ending in `suffix` named or found under the paths (directories recursively, in name
 * order). A named file of another kind is a usage error; one found in a directory is passed over.
 */
export function filesUnder(paths: readonly string[], suffix: string, kind: string): string[] {
  const found: string[] = [];
  const visit = (path: string, named: boolean) => {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      throw new CliUsageError(`cannot read \`${path}\`: no such file or directory`);
    }
    if (!isDirectory) {
      if (path.endsWith(suffix)) found.push(path);
      else if (named) throw new CliUsageError(`\`${path}\` is not a ${kind} (\`<module>${suffix}\`) or a directory`);
      return;
    }
    for (const entry of readdirSync(path).sort()) {
      if (!SKIPPED_DIRECTORIES.has(entry)) visit(join(path, entry), false);
    }
  };
  for (const path of paths) visit(path, true);
  return found;
}

/** The file of the same module with the other suffix, in the same directory. */
export function besideFile(path: string, fromSuffix: string, toSuffix: string): string {
  return join(dirname(path), `${basename(path, fromSuffix)}${toSuffix}`);
}
