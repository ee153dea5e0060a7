// Every configuration variable the service reads is in the configuration table of
// docs/configuration.md, and the table names none it does not read.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../src/config/index.js';

const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
const section = page.slice(page.indexOf('\n## Configuration\n'), page.indexOf('\n## Limits\n'));

describe('the configuration table of docs/configuration.md', () => {
  it('has the section the table lives in', () => {
    expect(section.length).toBeGreaterThan(0);
  });

  it('lists exactly the variables of the configuration schema', () => {
    const documented = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!).sort();
    expect(documented).toEqual(Object.keys(envSchema.shape).sort());
  });
});
