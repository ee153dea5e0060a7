import { vi } from 'vitest';
vi.mock('../../src/language/index.js', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  format: (await import('../../src/language/format/index.js')).format,
}));
await import('./round-trip.test.js');
await import('./never-throws.test.js');
await import('./terminates.test.js');
