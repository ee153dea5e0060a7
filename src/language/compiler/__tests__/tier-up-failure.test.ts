import { describe, expect, it, vi } from 'vitest';
import type { TierUpFailure } from '../../api-types.js';
import { compile, evaluate } from '../../index.js';

// Every tier-up fails, as an engine limit or a generator defect would make it.
vi.mock('../code-generator.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../code-generator.js')>()),
  generateRules: () => {
    throw new Error('generation failed');
  },
}));

describe('a failed tier-up', () => {
  it('keeps the closure form, answers as before and is reported once per program', () => {
    const source = ['Module m.', 'Rule double given x as Int, produce Int:', '  Return x * 2.', 'Rule half given x as Int, produce Float:', '  Return x / 2.', ''].join('\n');
    const failures: TierUpFailure[] = [];
    const program = compile(source, 'en-US', { onTierUpFailure: (failure) => failures.push(failure) }).program!;
    for (let i = 0; i < 1100; i++) {
      expect(evaluate(program, 'double', { x: i })).toEqual({ ok: true, value: i * 2 });
      expect(evaluate(program, 'half', [i])).toEqual({ ok: true, value: i / 2 });
    }
    expect(evaluate(program, 'double', { x: 'a' })).toMatchObject({ ok: false, diagnostics: [{ code: 'PL5004' }] });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ moduleName: 'm', functionName: 'double' });
    expect(String(failures[0]!.error)).toContain('generation failed');
  });

  it('warns on the console once per program when no hook is given', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const program = compile(['Module m.', 'Rule one produce Int:', '  Return 1.', ''].join('\n'), 'en-US').program!;
      for (let i = 0; i < 1100; i++) expect(evaluate(program, 'one', {})).toEqual({ ok: true, value: 1 });
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });
});
