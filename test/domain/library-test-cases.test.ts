// The built-in library's own test cases (policies/<module>.tests.json), run as `policy test
// policies` runs them: every module has cases, and every case passes.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

const POLICIES = fileURLToPath(new URL('../../policies', import.meta.url));

describe('policy test policies', () => {
  it('finds a test file beside every built-in module and passes every case', async () => {
    let out = '';
    let err = '';
    const code = await main(['test', POLICIES], { out: (t) => void (out += t), err: (t) => void (err += t) });
    expect(err).toBe('');
    expect(code).toBe(0);
    const modules = readdirSync(POLICIES).filter((name) => name.endsWith('.policy'));
    expect(out).toMatch(new RegExp(`^PASS: (\\d+)/\\1 cases passed in ${modules.length} of ${modules.length} files$`, 'm'));
    for (const module of modules) expect(out).toContain(`ok   ${POLICIES}/${module}:`);
  });
});
