// Every configuration variable the service reads is in the README's configuration table, and the
// table names none it does not read.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../src/config/index.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Limits'));

describe('the README configuration table', () => {
  it('lists exactly the variables of the configuration schema', () => {
    const documented = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!).sort();
    expect(documented).toEqual(Object.keys(envSchema.shape).sort());
  });
});
