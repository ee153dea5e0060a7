import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const KERNEL = fileURLToPath(new URL('..', import.meta.url));
/** Every `from '…'` and `import('…')` specifier of a file, type imports included. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

describe('the kernel', () => {
  it('imports nothing but its own files, Node built-ins and zod', () => {
    const files = readdirSync(KERNEL).filter((name) => name.endsWith('.ts'));
    expect(files).toContain('index.ts');
    const outside = files.flatMap((name) =>
      [...readFileSync(join(KERNEL, name), 'utf8').matchAll(SPECIFIER)]
        .map((match) => match[1]!)
        .filter((specifier) => !/^\.\/[^/]+\.js$/.test(specifier) && !specifier.startsWith('node:') && specifier !== 'zod')
        .map((specifier) => `${name}: ${specifier}`),
    );
    expect(outside).toEqual([]);
  });
});
