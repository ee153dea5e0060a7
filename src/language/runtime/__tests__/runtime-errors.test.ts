import { describe, expect, it } from 'vitest';
import { describeDiagnostic } from '../../index.js';
import { check } from '../../checker/index.js';
import { compileProgram } from '../../compiler/index.js';
import { evaluate } from '../../index.js';
import { parse } from '../../parser/index.js';
import { failure, program, run, value } from './test-support.js';

describe('runtime errors carry the span of the failing node', () => {
  it('PL3001 division by zero, Int and Float', () => {
    const lines = ['Module m.', 'Rule r given a as Float, b as Float, produce Float:', '  Return a + a / b.'];
    expect(failure(lines, 'r', { a: 1, b: 0 })).toMatchObject({ code: 'PL3001', message: 'division by zero', text: 'a / b' });
    expect(failure(['Module m.', 'Rule r given b as Int, produce Float:', '  Return 1 divided by b.'], 'r', [0])).toMatchObject({ code: 'PL3001', text: '1 divided by b' });
  });

  it('PL3002 modulo by zero', () => {
    expect(failure(['Module m.', 'Rule r given a as Int, b as Int, produce Int:', '  Return a % b.'], 'r', [7, 0])).toMatchObject({ code: 'PL3002', text: 'a % b' });
  });

  it('PL3003 Int results outside ±(2^53−1), from every Int operation', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(failure(['Module m.', 'Rule r given n as Int, produce Int:', '  Return n + 1.'], 'r', [max])).toMatchObject({ code: 'PL3003', text: 'n + 1' });
    expect(failure(['Module m.', 'Rule r given n as Int, produce Int:', '  Return n - 2.'], 'r', [-max + 1])).toMatchObject({ code: 'PL3003', text: 'n - 2' });
    expect(failure(['Module m.', 'Rule r given n as Int, m as Int, produce Int:', '  Return n * m.'], 'r', [1e8, 1e8])).toMatchObject({ code: 'PL3003', text: 'n * m' });
    expect(failure(['Module m.', 'Rule r produce Int:', '  Return round(power(10, 20)).'], 'r', []).code).toBe('PL3003');
    expect(failure(['Module m.', 'Rule r given xs as List of Int, produce Int:', '  Return sum(xs).'], 'r', [[max, 1]])).toMatchObject({ code: 'PL3003', text: 'sum(xs)' });
    expect(value(['Module m.', 'Rule r given n as Int, produce Int:', '  Return n + 1.'], 'r', [max - 1])).toBe(max);
  });

  it('PL3004 Fail with carries the rule\'s text, also from a called rule', () => {
    const lines = [
      'Module m.',
      'Rule check given n as Int, produce Int:',
      '  If n < 0:',
      '    Fail with "negative: " + text(n).',
      '  Return n.',
      'Rule main given xs as List of Int, produce Int:',
      '  Let total be 0.',
      '  For each x in xs:',
      '    Let total be total + check(x).',
      '  Return total.',
    ];
    const d = failure(lines, 'main', [[1, -3]]);
    expect(d).toMatchObject({ code: 'PL3004', message: 'negative: -3', text: 'Fail with "negative: " + text(n).' });
    expect(describeDiagnostic(d)).toBe('PL3004 negative: -3 at 4:5');
  });

  it('PL3005 non-finite numeric results', () => {
    expect(failure(['Module m.', 'Rule r given x as Float, produce Float:', '  Return sqrt(x).'], 'r', [-1])).toMatchObject({ code: 'PL3005', text: 'sqrt(x)' });
    expect(failure(['Module m.', 'Rule r produce Float:', '  Return power(10, 400).'], 'r', []).text).toBe('power(10, 400)');
    expect(failure(['Module m.', 'Rule r produce Float:', '  Return power(0, -1).'], 'r', []).code).toBe('PL3005');
    expect(failure(['Module m.', 'Rule r given x as Float, produce Float:', '  Return x * x.'], 'r', [1e200])).toMatchObject({ code: 'PL3005', text: 'x * x' });
    expect(failure(['Module m.', 'Rule r given x as Float, produce Float:', '  Return x / 0.5.'], 'r', [1.7e308])).toMatchObject({ code: 'PL3005', text: 'x / 0.5' });
  });

  it('PL3006 round with digits outside 0..15', () => {
    const lines = ['Module m.', 'Rule r given d as Int, produce Float:', '  Return round(1.25, d).'];
    expect(failure(lines, 'r', [-1])).toMatchObject({ code: 'PL3006', text: 'round(1.25, d)' });
    expect(failure(lines, 'r', [16]).code).toBe('PL3006');
    expect(value(lines, 'r', [15])).toBe(1.25);
  });

  it('short-circuited operands are never evaluated', () => {
    const lines = ['Module m.', 'Rule r given n as Int, produce Bool:', '  Return n is 0 or 10 % n is 0.'];
    expect(value(lines, 'r', [0])).toBe(true);
    expect(value(['Module m.', 'Rule r given d as Int, produce Bool:', '  Return d is not 0 and 10 / d > 1.'], 'r', [0])).toBe(false);
  });
});

describe('limits', () => {
  const loops = [
    'Module m.',
    'Rule r given xs as List of Int, produce Int:',
    '  Let total be 0.',
    '  For each a in xs:',
    '    For each b in xs:',
    '      Let total be total + 1.',
    '  Return total.',
  ];

  it('PL4003 counts statements and loop iterations', () => {
    // 1 Let + 1 For + 3 × (1 iteration + 1 For + 3 × (1 iteration + 1 Let)) + 1 Return = 27 steps
    const { program: compiled } = program(loops);
    expect(evaluate(compiled, 'r', [[1, 2, 3]], { stepBudget: 27 })).toEqual({ ok: true, value: 9 });
    const result = evaluate(compiled, 'r', [[1, 2, 3]], { stepBudget: 26 });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.diagnostics[0]).toMatchObject({ code: 'PL4003', message: 'step budget of 26 steps exceeded' });
      expect(result.diagnostics[0]!.span).not.toBeNull();
    }
  });

  it('PL4003 counts rule calls and the work inside them', () => {
    const lines = [
      'Module m.',
      'Rule one produce Int:',
      '  Return 1.',
      'Rule r produce Int:',
      '  Return one() + one().',
    ];
    // r: Return (1) + 2 × (call 1 + Return 1) = 5
    const { program: compiled } = program(lines);
    expect(evaluate(compiled, 'r', [], { stepBudget: 5 })).toEqual({ ok: true, value: 2 });
    expect(evaluate(compiled, 'r', [], { stepBudget: 4 }).ok).toBe(false);
  });

  it('the default budget is 1,000,000 steps and compile options set a program default', () => {
    const six = [
      'Module m.',
      'Rule r given xs as List of Int, produce Int:',
      '  Let t be 0.',
      '  For each a in xs:',
      '    For each b in xs:',
      '      For each c in xs:',
      '        For each d in xs:',
      '          For each e in xs:',
      '            For each f in xs:',
      '              Let t be t + 1.',
      '  Return t.',
    ];
    const ten = [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]];
    expect(run(six, 'r', ten)).toMatchObject({ ok: false, diagnostics: [{ code: 'PL4003', message: 'step budget of 1000000 steps exceeded' }] });
    expect(evaluate(program(six, 'en-US', 3_000_000).program, 'r', ten)).toEqual({ ok: true, value: 1_000_000 });
  });

  it('a budget that is not a positive integer is a programming error', () => {
    const { program: compiled } = program(loops);
    expect(() => evaluate(compiled, 'r', [[1]], { stepBudget: 0 })).toThrow(RangeError);
  });

  it('PL4005 text that grows beyond 2^24 characters', () => {
    const lines = [
      'Module m.',
      'Rule r given xs as List of Int, produce Int:',
      '  Let s be "abcdefgh".',
      '  For each x in xs:',
      '    Let s be s + s.',
      '  Return length(s).',
    ];
    // 8 × 2^21 = 2^24 characters is the most a text may have; one more doubling is too many.
    const doublings = (n: number) => [Array.from({ length: n }, (_, i) => i)];
    expect(value(lines, 'r', doublings(21))).toBe(2 ** 24);
    expect(failure(lines, 'r', doublings(22))).toMatchObject({ code: 'PL4005', text: 's + s' });
  });

  it('PL4005 from join is judged before the text is built, in both tiers', () => {
    const lines = [
      'Module m.',
      'Rule r given doublings as List of Int, copies as List of Int, separator as Text, produce Int:',
      '  Let s be "abcdefgh".',
      '  For each x in doublings:',
      '    Let s be s + s.',
      '  Let parts be [s].',
      '  For each c in copies:',
      '    Let parts be append(parts, s).',
      '  Return length(join(parts, separator)).',
    ];
    const context = (doublings: number, extraCopies: number, separator = '') => ({
      doublings: Array.from({ length: doublings }, (_, i) => i),
      copies: Array.from({ length: extraCopies }, (_, i) => i),
      separator,
    });
    const source = lines.join('\n') + '\n';
    const hot = compileProgram(check(parse(source, 'en-US').module!).checked!, { source, locale: 'en-US', tierUpAfter: 1 });
    for (const compiled of [program(lines).program, hot]) {
      for (let round = 0; round < 2; round++) {
        const codeOf = (c: unknown) => {
          const result = evaluate(compiled, 'r', c);
          return result.ok ? result.value : result.diagnostics.map((d) => d.code);
        };
        expect(codeOf(context(21, 0))).toBe(2 ** 24);
        expect(codeOf(context(21, 1))).toEqual(['PL4005']);
        // 33 texts of 2^24 characters joined are longer than the engine can hold: once an internal error.
        expect(codeOf(context(21, 32))).toEqual(['PL4005']);
        // The separators count: 8 + 8 characters and a separator of 2^24 − 16 fit exactly.
        expect(codeOf(context(0, 1, 'x'.repeat(2 ** 24 - 16)))).toBe(2 ** 24);
        expect(codeOf(context(0, 1, 'x'.repeat(2 ** 24 - 15)))).toEqual(['PL4005']);
      }
    }
    expect(failure(lines, 'r', context(21, 32))).toMatchObject({ code: 'PL4005', text: 'join(parts, separator)' });
  });

  it('PL4005 from lower and upper when case mapping makes the text longer than 2^24, in both tiers', () => {
    // "İ" lowers to two characters and "ß" uppers to two: 2^23 of either is within the limit, the result is not.
    const lines = (name: string, letter: string) => [
      'Module m.',
      'Rule r given xs as List of Int, produce Int:',
      `  Let s be "${letter}".`,
      '  For each x in xs:',
      '    Let s be s + s.',
      `  Return length(${name}(s)).`,
    ];
    const doublings = (n: number) => [Array.from({ length: n }, (_, i) => i)];
    for (const [name, letter] of [
      ['lower', 'İ'],
      ['upper', 'ß'],
    ] as const) {
      const source = lines(name, letter).join('\n') + '\n';
      const hot = compileProgram(check(parse(source, 'en-US').module!).checked!, { source, locale: 'en-US', tierUpAfter: 1 });
      for (const compiled of [program(lines(name, letter)).program, hot]) {
        for (let round = 0; round < 2; round++) {
          const codeOf = (xs: unknown) => {
            const result = evaluate(compiled, 'r', xs);
            return result.ok ? result.value : result.diagnostics.map((d) => d.code);
          };
          expect(codeOf(doublings(22)), `${name} of 2^22`).toBe(2 ** 23);
          expect(codeOf(doublings(23)), `${name} of 2^23`).toBe(2 ** 24);
          expect(codeOf(doublings(24)), `${name} of 2^24`).toEqual(['PL4005']);
        }
      }
      expect(failure(lines(name, letter), 'r', doublings(24))).toMatchObject({ code: 'PL4005', text: `${name}(s)` });
    }
  });
});

describe('evaluation is repeatable', () => {
  it('a failed evaluation leaves nothing behind for the next one', () => {
    const lines = ['Module m.', 'Rule r given a as Int, b as Int, produce Float:', '  Let q be a / b.', '  Return q.'];
    const { program: compiled } = program(lines);
    expect(evaluate(compiled, 'r', [1, 0]).ok).toBe(false);
    expect(evaluate(compiled, 'r', [1, 4])).toEqual({ ok: true, value: 0.25 });
  });

  it('returned lists are fresh for every evaluation', () => {
    const { program: compiled } = program(['Module m.', 'Rule r produce List of Int:', '  Return [1, 2].']);
    const first = evaluate(compiled, 'r', []);
    if (!first.ok) throw new Error('failed');
    (first.value as number[]).push(3);
    expect(evaluate(compiled, 'r', [])).toEqual({ ok: true, value: [1, 2] });
  });
});
