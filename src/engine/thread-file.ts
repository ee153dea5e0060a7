import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export class EngineThreadFileMissingError extends Error {
  constructor(name: string) {
    super(`compiled thread entry \`dist/workers/${name}.js\` not found: run \`npm run build\` first`);
    this.name = 'EngineThreadFileMissingError';
  }
}

/**
 * Path of a compiled thread entry. Threads always load JavaScript from dist/workers, whether this
 * module runs compiled (dist/src/engine) or as TypeScript under vitest (src/engine): walking up
 * from here finds either the dist folder itself or the project root that contains it.
 */
export function resolveThreadFile(name: string, from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    const inDist = join(dir, 'workers', `${name}.js`);
    if (basename(dir) === 'dist' && existsSync(inDist)) return inDist;
    const underRoot = join(dir, 'dist', 'workers', `${name}.js`);
    if (existsSync(underRoot)) return underRoot;
    const parent = dirname(dir);
    if (parent === dir) throw new EngineThreadFileMissingError(name);
    dir = parent;
  }
}
