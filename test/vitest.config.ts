import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The config lives in test/; paths below are relative to the project root.
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['src/**/__tests__/**/*.test.ts', 'test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
    globalSetup: ['test/support/private-redis-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites share one Redis and one store per file; files run in parallel forks, two
    // at once even on two cores (vitest's default there is one): the process and fault suites
    // mostly wait on their children, so a neighbour uses the idle core.
    pool: 'forks',
    maxWorkers: 2,
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: process.env.CI ? { json: 'test-results.json' } : undefined,
  },
});
