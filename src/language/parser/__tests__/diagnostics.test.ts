import { describe, expect, it } from 'vitest';
import { parse } from '../index.js';
import { inRule, problems } from './test-support.js';

describe('syntax diagnostics', () => {
  it('reports a missing `.` (PL1007) under the last token and keeps the statement', () => {
    const source = inRule('  Let x be 1\n  Return x.');
    expect(problems(source)).toEqual([['PL1007', '1']]);
    expect(parse(source, 'en-US').module!.declarations[0]).toMatchObject({ body: [{ kind: 'Let' }, { kind: 'Return' }] });
  });

  it('reports a missing `:` (PL1008) and still reads the block', () => {
    const source = inRule('  If x\n    Return 1.\n  Return 2.');
    expect(problems(source)).toEqual([['PL1008', 'x']]);
    expect(parse(source, 'en-US').module!.declarations[0]).toMatchObject({ body: [{ kind: 'If', branches: [{ body: [{}] }] }, {}] });
  });

  it('reports a missing block (PL1009) under the header keyword', () => {
    expect(problems('Module m.\nRule f produce Int:\nReturn 1.\n')).toEqual([
      ['PL1009', 'Rule'],
      ['PL1006', 'Return'],
    ]);
  });

  it('reports a missing module header (PL1010) and a second one (PL1011)', () => {
    expect(problems('Define T has a as Int.\n')).toEqual([['PL1010', 'Define']]);
    expect(problems('Module a.\nModule b.\n')).toEqual([['PL1011', 'Module']]);
    expect(parse('', 'en-US')).toMatchObject({ module: null, diagnostics: [{ code: 'PL1010' }] });
  });

  it('reports a keyword used as a name (PL1013) with help, and goes on', () => {
    const result = parse(inRule('  Let in be 1.\n  Return in.'), 'en-US');
    expect(result.diagnostics.map((d) => [d.code, d.help])).toEqual([
      ['PL1013', 'write it in backticks: `in`'],
      ['PL1013', 'write it in backticks: `in`'],
    ]);
    expect(result.diagnostics[0]!.message).toBe('`in` is a keyword and cannot be used as a name');
    expect(problems('模块 m。\n定义 如果 包含 a 为 整数。\n', 'zh-CN')).toEqual([['PL1013', '如果']]);
    expect(problems('Modul m.\nDefiniere T mit Text als Ganzzahl.\n', 'de-DE')).toEqual([['PL1013', 'Text']]);
  });

  it('reports unexpected indentation (PL1016) under the first token of the line', () => {
    expect(problems(inRule('  Let x be 1.\n    Return x.'))).toEqual([['PL1016', 'Return']]);
    expect(problems('Module m.\n  Define T has a as Int.\n')).toEqual([['PL1016', 'Define']]);
    expect(problems('  Module m.\n')).toEqual([['PL1016', 'Module']]);
  });

  it('suggests a close statement keyword', () => {
    const [diagnostic] = parse(inRule('  Retrun 1.'), 'en-US').diagnostics;
    expect(diagnostic).toMatchObject({ code: 'PL1006', message: 'expected a statement, found `Retrun`', help: 'did you mean `Return`?' });
  });

  it('gives each diagnostic a plain span with 1-based line and column', () => {
    const [diagnostic] = parse(inRule('  Let x 1.'), 'en-US').diagnostics;
    expect(diagnostic).toEqual({
      code: 'PL1006',
      severity: 'error',
      message: 'expected `be`, found `1`',
      span: { start: 38, end: 39, line: 3, column: 9, endLine: 3, endColumn: 10 },
    });
  });

  it('names what was expected and what was found (PL1006)', () => {
    const [diagnostic] = parse(inRule('  Let x 1.'), 'en-US').diagnostics;
    expect(diagnostic).toMatchObject({ code: 'PL1006', message: 'expected `be`, found `1`' });
    const [german] = parse('Modul m.\nRegel f liefert Ganzzahl:\n  Sei x 1.\n', 'de-DE').diagnostics;
    expect(german!.message).toBe('expected `gleich`, found `1`');
  });

  it('underlines the last token when a line ends too early', () => {
    expect(problems(inRule('  Let x be 1 plus\n  Return x.'))).toEqual([['PL1006', 'plus']]);
  });

  it('reports `Otherwise` without `If` and `When` outside `Match`', () => {
    expect(problems(inRule('  Otherwise:\n    Return 1.\n  When A:\n    Return 2.'))).toEqual([
      ['PL1006', 'Otherwise'],
      ['PL1006', 'When'],
    ]);
  });

  it('keeps lexical and syntax problems of one line to one report', () => {
    expect(problems(inRule('  Return x;'))).toEqual([['PL1001', ';']]);
  });

  it('reports a module header in another locale (PL6003) naming both locales', () => {
    const result = parse('Modul a.\n', 'en-US');
    expect(result.module).toBeNull();
    expect(problems('Modul a.\n')).toEqual([['PL6003', 'Modul']]);
    expect(result.diagnostics[0]!.message).toContain('de-DE');
    expect(result.diagnostics[0]!.message).toContain('en-US');
    expect(problems('# header follows\nModule a.\n', 'zh-CN')).toEqual([['PL6003', 'Module']]);
    expect(problems('模块 a。\n', 'de-DE')).toEqual([['PL6003', '模块']]);
  });

  it('rejects a source over 64 KiB (PL4001) without parsing it', () => {
    const source = `Module m.\n${'# padding\n'.repeat(6600)}`;
    const result = parse(source, 'en-US');
    expect(result.module).toBeNull();
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PL4001']);
  });

  it('reports expressions nested deeper than 64 levels (PL4002)', () => {
    const nested = (depth: number) => inRule(`  Return ${'('.repeat(depth)}1${')'.repeat(depth)}.`);
    expect(problems(nested(64))).toEqual([]);
    expect(problems(nested(65))).toEqual([['PL4002', '(']]);
    expect(problems(nested(5000)).map(([code]) => code)).toEqual(['PL4002']);
  });

  it('counts each further operator of a chain as a level, so every tree stays shallow (PL4002)', () => {
    const chain = (operators: number) => inRule(`  Return 1${' plus 1'.repeat(operators)}.`);
    expect(problems(chain(64))).toEqual([]);
    expect(problems(chain(65))).toEqual([['PL4002', 'plus']]);
    const huge = parse(inRule(`  Return 1${'+1'.repeat(30000)}.`), 'en-US');
    expect(huge.diagnostics.map((d) => d.code)).toEqual(['PL4002']);
  });

  it('reports blocks nested deeper than 64 levels (PL4002)', () => {
    const nested = (depth: number) => {
      const lines = ['Module m.', 'Rule f produce Int:'];
      for (let i = 1; i < depth; i++) lines.push(`${'  '.repeat(i)}If x:`);
      lines.push(`${'  '.repeat(depth)}Return 1.`);
      return `${lines.join('\n')}\n`;
    };
    expect(problems(nested(64))).toEqual([]);
    expect(problems(nested(65))).toEqual([['PL4002', 'If']]);
  });
});

describe('error recovery', () => {
  it('reports several problems, one per broken statement or declaration, in source order', () => {
    const source = [
      'Module m.',
      'Define T has a as .',
      'Define U as one of A, B.',
      'Rule f produce Int:',
      '  Let x be .',
      '  Let y be 2.',
      '  If y is:',
      '    Return 1 2.',
      '  Otherwise:',
      '    Return 3.',
      '  Return `y` plus.',
      'Rule g produce :',
      '  Return 1 <.',
      '',
    ].join('\n');
    const result = parse(source, 'en-US');
    expect(result.diagnostics.map((d) => [d.code, source.slice(d.span!.start, d.span!.end), d.span!.line])).toEqual([
      ['PL1006', '.', 2],
      ['PL1006', '.', 5],
      ['PL1006', ':', 7],
      ['PL1006', '2', 8],
      ['PL1006', '.', 11],
      ['PL1006', ':', 12],
      ['PL1006', '.', 13],
    ]);
    const names = result.module!.declarations.map((d) => d.name);
    expect(names).toEqual(['U', 'f']);
  });

  it('stops at 20 diagnostics', () => {
    const source = inRule(Array.from({ length: 40 }, () => '  Let x be .').join('\n'));
    const result = parse(source, 'en-US');
    expect(result.diagnostics).toHaveLength(20);
    expect(result.diagnostics.every((d) => d.code === 'PL1006')).toBe(true);
    expect(result.module).not.toBeNull();
  });

  it('never throws on arbitrary text', () => {
    const samples = ['(((', ']]]:', 'Module', 'Module m.\nRule', 'Module m.\nRule f produce Int:\n  Match x:\n', '"\\u{', '`', '  \t  x'];
    for (const sample of samples) {
      for (const locale of ['en-US', 'zh-CN', 'de-DE'] as const) {
        const result = parse(sample, locale);
        expect(result.diagnostics.length).toBeGreaterThan(0);
        for (const d of result.diagnostics) expect(d.span!.end).toBeGreaterThanOrEqual(d.span!.start);
      }
    }
  });
});
