import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { evaluate } from '../../language/index.js';
import { BuiltinLibraryError, defaultPolicyDirectory, loadBuiltinLibrary } from '../builtin-library.js';

const packageRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));

const GOOD_EN = ['Module demo.good.', '', 'Rule double given x as Int, produce Int:', '  Return x times 2.', ''].join('\n');
const GOOD_DE = ['Modul demo.gut.', '', 'Regel verdopple gegeben x als Ganzzahl, liefert Ganzzahl:', '  Liefere x mal 2.', ''].join('\n');

describe('loadBuiltinLibrary', () => {
  it('loads the shipped library from the package root', async () => {
    expect(defaultPolicyDirectory()).toBe(join(packageRoot, 'policies'));
    const modules = await loadBuiltinLibrary();
    expect(modules.map((m) => [m.moduleName, m.locale])).toEqual([
      ['healthcare.claims', 'zh-CN'],
      ['healthcare.eligibility', 'en-US'],
      ['insurance.auto', 'en-US'],
      ['insurance.life', 'en-US'],
      ['lending.creditcard', 'de-DE'],
      ['lending.enterprise', 'en-US'],
      ['lending.loan', 'en-US'],
      ['lending.personal', 'en-US'],
    ]);
    const life = modules.find((m) => m.moduleName === 'insurance.life')!;
    expect(life.source).toBe(await readFile(join(packageRoot, 'policies', 'insurance.life.policy'), 'utf8'));
    expect(life.file).toBe(join(packageRoot, 'policies', 'insurance.life.policy'));
    expect(life.program.moduleName).toBe('insurance.life');
    expect(life.functions.map((f) => f.name)).toEqual(expect.arrayContaining(['calculateLifeRiskScore', 'generateLifeQuote']));
    expect(life.functions).toBe(life.program.functions);
  });

  it('returns programs ready to evaluate', async () => {
    const modules = await loadBuiltinLibrary();
    const loan = modules.find((m) => m.moduleName === 'lending.loan')!;
    const result = evaluate(loan.program, 'evaluateLoanEligibility', [
      { requestedAmount: 1000, termMonths: 12, purpose: 'CAR' },
      { age: 17, annualIncome: 30_000, creditScore: 700, monthlyDebt: 0, yearsEmployed: 2 },
    ]);
    expect(result).toMatchObject({ ok: true, value: { eligible: false, rejectionReasons: ['applicant under 18'] } });
  });

  describe('with a directory of its own', () => {
    let dir: string;

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'builtin-library-'));
    });

    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('detects each module locale from its header and ignores other files', async () => {
      await writeFile(join(dir, 'demo.good.policy'), GOOD_EN);
      await writeFile(join(dir, 'demo.gut.policy'), GOOD_DE);
      await writeFile(join(dir, 'README.md'), 'not a policy');
      const modules = await loadBuiltinLibrary(dir);
      expect(modules.map((m) => [m.moduleName, m.locale, m.functions.map((f) => f.name)])).toEqual([
        ['demo.good', 'en-US', ['double']],
        ['demo.gut', 'de-DE', ['verdopple']],
      ]);
    });

    it('refuses to start with a policy that does not compile, naming the file and the diagnostics', async () => {
      await writeFile(join(dir, 'demo.good.policy'), GOOD_EN);
      await writeFile(join(dir, 'demo.bad.policy'), ['Module demo.bad.', '', 'Rule broken given x as Int, produce Int:', '  Return y.', ''].join('\n'));
      const error = await loadBuiltinLibrary(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BuiltinLibraryError);
      const failure = error as BuiltinLibraryError;
      expect(failure.file).toBe(join(dir, 'demo.bad.policy'));
      expect(failure.message).toContain(join(dir, 'demo.bad.policy'));
      expect(failure.diagnostics.map((d) => d.code)).toContain('PL2001');
      expect(failure.message).toMatch(/PL2001 .* at 4:\d+/);
    });

    it('refuses a file whose name is not its module name', async () => {
      await writeFile(join(dir, 'demo.other.policy'), GOOD_EN);
      await expect(loadBuiltinLibrary(dir)).rejects.toThrow(/declares module `demo\.good`; the file must be named `demo\.good\.policy`/);
    });

    it('refuses a file without a module header', async () => {
      await writeFile(join(dir, 'demo.empty.policy'), '# nothing here\n');
      await expect(loadBuiltinLibrary(dir)).rejects.toThrow(BuiltinLibraryError);
      await expect(loadBuiltinLibrary(dir)).rejects.toThrow(/demo\.empty\.policy/);
    });

    it('refuses an empty library', async () => {
      await expect(loadBuiltinLibrary(dir)).rejects.toThrow(/no \.policy files/);
    });

    it('refuses a missing directory', async () => {
      await expect(loadBuiltinLibrary(join(dir, 'missing'))).rejects.toThrow(/cannot read the policy directory/);
    });
  });
});
