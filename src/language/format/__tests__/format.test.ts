import { describe, expect, it } from 'vitest';
import type { Locale } from '../../api-types.js';
import { parse } from '../../parser/index.js';
import { LOAN_EXAMPLE_EN } from '../../parser/__tests__/fixtures/loan-example.js';
import { format, formatFloat, formatText } from '../index.js';

function reformat(source: string, from: Locale, to: Locale = from): string {
  const result = parse(source, from);
  expect(result.diagnostics).toEqual([]);
  return format(result.module!, to);
}

const rule = (statements: string) => `Module m.\n\nRule f produce Int:\n${statements}\n`;

describe('format: canonical layout', () => {
  it('prints the §1 example in its canonical en-US form (operators as words)', () => {
    expect(reformat(LOAN_EXAMPLE_EN, 'en-US')).toBe(
      LOAN_EXAMPLE_EN.replace('applicant.creditScore < 600', 'applicant.creditScore is less than 600'),
    );
  });

  it('normalises spacing, case, symbols and optional words', () => {
    const messy = 'MODULE  m .\nrule f   given a as int,b as Int produce INT:\n  IF a>=1   and b == 2:\n    RETURN a+b*2.\n  return  a less than 1_000.\n';
    expect(reformat(messy, 'en-US')).toBe(
      'Module m.\n\nRule f given a as Int, b as Int, produce Int:\n  If a is at least 1 and b is 2:\n    Return a plus b times 2.\n  Return a is less than 1000.\n',
    );
  });

  it('prints zh-CN with full-width punctuation and `、` between enum variants', () => {
    const source = 'Module m.\nDefine T as one of A, B.\nRule f given x as List of Int, produce Int:\n  For each i in x:\n    Return i.\n  Return 0.\n';
    expect(reformat(source, 'en-US', 'zh-CN')).toBe(
      '模块 m。\n\n定义 T 为以下之一 A、B。\n\n规则 f 给定 x 为 列表 整数，产出 整数：\n  对于每个 i 在 x 中：\n    返回 i。\n  返回 0。\n',
    );
  });

  it('keeps records and enums together and sets rules apart', () => {
    const source = 'Module m.\nDefine A has a as Int.\nRule f produce Int:\n  Return 1.\nDefine B as one of X.\nDefine C has c as Text.\n';
    expect(reformat(source, 'en-US')).toBe(
      'Module m.\n\nDefine A has a as Int.\n\nRule f produce Int:\n  Return 1.\n\nDefine B as one of X.\nDefine C has c as Text.\n',
    );
  });

  it('keeps comments on their own lines', () => {
    const source = '# top\nModule m. # header\n# rule\nRule f produce Int:\n  Let x be 1. // x\n  # last\n  Return x.\n# end\n';
    expect(reformat(source, 'en-US')).toBe(
      '# top\n# header\nModule m.\n\n# rule\nRule f produce Int:\n  # x\n  Let x be 1.\n  # last\n  Return x.\n\n# end\n',
    );
  });

  it('prints Match cases one level deeper than the Match', () => {
    const source = rule('  Match t:\n    When A, T.B, -1, "x":\n      Return 1.\n    Otherwise:\n      Return 2.');
    expect(reformat(source, 'en-US', 'de-DE')).toBe(
      'Modul m.\n\nRegel f liefert Ganzzahl:\n  Prüfe t:\n    Bei A, T.B, -1, "x":\n      Liefere 1.\n    Sonst:\n      Liefere 2.\n',
    );
  });
});

describe('format: expressions', () => {
  const expression = (text: string, to: Locale = 'en-US') => {
    const out = reformat(rule(`  Return ${text}.`), 'en-US', to);
    const line = out.split('\n')[3]!;
    return line.slice(line.indexOf(' ', 2) + 1, -(to === 'zh-CN' ? '。' : '.').length);
  };

  it('uses the fewest parentheses that keep the tree', () => {
    expect(expression('((a plus b)) times (c)')).toBe('(a plus b) times c');
    expect(expression('a minus (b minus c)')).toBe('a minus (b minus c)');
    expect(expression('(a minus b) minus c')).toBe('a minus b minus c');
    expect(expression('a or (b and c)')).toBe('a or b and c');
    expect(expression('(a or b) and c')).toBe('(a or b) and c');
    expect(expression('not (a is b)')).toBe('not a is b');
    expect(expression('(not a) is b')).toBe('(not a) is b');
    expect(expression('(a < b) is (c < d)')).toBe('(a is less than b) is (c is less than d)');
    expect(expression('-(a.b)')).toBe('-a.b');
    expect(expression('(-a).b')).toBe('(-a).b');
    expect(expression('-(a plus b)')).toBe('-(a plus b)');
    expect(expression('-(-a)')).toBe('- -a');
    expect(expression('x between (a or b) and c plus 1')).toBe('x is between (a or b) and c plus 1');
  });

  it('puts a record in parentheses where it would swallow what follows', () => {
    expect(expression('(P with a set to 1) plus 2')).toBe('(P with a set to 1) plus 2');
    expect(expression('P with a set to (Q with b set to 1), c set to 2')).toBe(
      'P with a set to (Q with b set to 1), c set to 2',
    );
    expect(expression('P with a set to Q with b set to 1')).toBe('P with a set to Q with b set to 1');
    expect(expression('[P with a = 1, b]')).toBe('[P with a set to 1, b]');
    expect(expression('(P with a = 1).a')).toBe('(P with a set to 1).a');
  });

  it('writes names that are keywords of the target locale in backticks', () => {
    expect(expression('`in` plus `为` plus `less`')).toBe('`in` plus 为 plus `less`');
    expect(expression('`in` plus `为` plus `less`', 'zh-CN')).toBe('in 加上 `为` 加上 less');
    expect(expression('`ist` plus `Pruefe`', 'de-DE')).toBe('`ist` plus `Pruefe`');
    expect(expression('text(1) plus `Text`(2)')).toBe('text(1) plus `Text`(2)');
  });

  it('prints Float literals with a decimal point and no exponent', () => {
    expect(expression('12.0 plus 0.25 plus 1_000.5')).toBe('12.0 plus 0.25 plus 1000.5');
    expect(formatFloat(1e21)).toBe('1000000000000000000000.0');
    expect(formatFloat(1.5e-7)).toBe('0.00000015');
    expect(formatFloat(123.456e5)).toBe('12345600.0');
    expect(formatFloat(5e-324)).toBe(`0.${'0'.repeat(323)}5`);
    for (const value of [0, 1, 0.1, 1 / 3, 2 ** 60, 1.7976931348623157e308]) {
      expect(Number(formatFloat(value))).toBe(value);
    }
  });

  it('escapes text literals', () => {
    expect(formatText('a"b\\c\nd\te\u0001「」')).toBe('"a\\"b\\\\c\\nd\\te\\u{1}「」"');
    expect(expression('「引号"」')).toBe('"引号\\""');
  });

  it('escapes a full-width quote, which would otherwise close the printed literal', () => {
    expect(formatText('a＂b')).toBe('"a\\u{FF02}b"');
    // Inside 「…」 it is an ordinary character; printed in "…" it must survive a second reading.
    const printed = expression('「say ＂hi＂」');
    expect(printed).toBe('"say \\u{FF02}hi\\u{FF02}"');
    expect(expression(printed)).toBe(printed);
  });

  it('prints booleans and comparisons in the target locale', () => {
    expect(expression('a is one of [true, false] and b contains "x"', 'de-DE')).toBe(
      'a ist eines von [wahr, falsch] und b enthält "x"',
    );
    expect(expression('a is not b or a is between 1 and 2', 'zh-CN')).toBe('a 不是 b 或者 a 介于 1 与 2');
    expect(expression('f(a, b) divided by c modulo d', 'zh-CN')).toBe('f(a，b) 除以 c 取模 d');
  });
});
