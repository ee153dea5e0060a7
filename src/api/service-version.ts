import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ServiceVersion {
  /** The package name. */
  service: string;
  /** The package version (semver). */
  version: string;
  /** Major versions of the REST paths this build serves. */
  api: string[];
  /** The Node.js running it. */
  node: string;
}

let cached: ServiceVersion | undefined;

/**
 * What this build is (the answer of GET /version), from its own package.json: found by walking up
 * from this file, which sits in `src/api/` when run from source and in `dist/src/api/` when built.
 */
export function serviceVersion(): ServiceVersion {
  if (cached !== undefined) return cached;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (typeof manifest.name === 'string' && typeof manifest.version === 'string') {
        cached = { service: manifest.name, version: manifest.version, api: ['v1'], node: process.version };
        return cached;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (dirname(dir) === dir) throw new Error('package.json of the service not found above its code');
  }
}
