import { describe, expect, it } from 'vitest';
import type { Span } from '../../language/ast/nodes.js';
import type { Diagnostic } from '../../language/diagnostics/index.js';
import { displayWidth } from '../display-width.js';
import { renderDiagnostic } from '../render-diagnostic.js';

/** A span over the first occurrence of `text` in `source`, positions as the language reports them. */
function spanOf(source: string, text: string, from = 0): Span {
  const start = source.indexOf(text, from);
  if (start < 0) throw new Error(`${text} not in source`);
  const end = start + text.length;
  const position = (offset: number) => {
    const before = source.slice(0, offset);
    const line = before.split('\n').length;
    return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
  };
  const s = position(start);
  const e = position(end);
  return { start, end, line: s.line, column: s.column, endLine: e.line, endColumn: e.column };
}

function diagnostic(code: Diagnostic['code'], message: string, span: Span | null, help?: string): Diagnostic {
  return { code, severity: 'error', message, span, ...(help ? { help } : {}) };
}

describe('renderDiagnostic', () => {
  it('prints the code, the place, the source line and carets under the span', () => {
    const source = 'Module demo.\nRule r given score as Int, produce Int:\n  Return scor + 1.\n';
    const d = diagnostic('PL2001', 'unknown name `scor`, did you mean `score`?', spanOf(source, 'scor', source.indexOf('Return')));
    expect(renderDiagnostic(d, source, 'loan.policy')).toBe(
      [
        'error[PL2001]: unknown name `scor`, did you mean `score`?',
        ' --> loan.policy:3:10',
        '  |',
        '3 |   Return scor + 1.',
        '  |          ^^^^',
        '',
      ].join('\n'),
    );
  });

  it('prints the help text below the carets', () => {
    const source = 'Module demo.\nRule r produce Int:\n  Let when be 1.\n  Return 1.\n';
    const d = diagnostic('PL1013', 'a keyword cannot be used as a name', spanOf(source, 'when'), 'write it in backticks: `when`');
    const lines = renderDiagnostic(d, source, 'a.policy').split('\n');
    expect(lines[4]).toBe('  |       ^^^^');
    expect(lines[5]).toBe('  = help: write it in backticks: `when`');
  });

  it('lines carets up under double-width CJK text', () => {
    const source = '模块 示例。\n规则 值 给定 信用分 为 整数，产出 整数：\n  返回 信用 加上 1。\n';
    const d = diagnostic('PL2001', 'unknown name `信用`', spanOf(source, '信用', source.indexOf('返回')));
    const lines = renderDiagnostic(d, source, 'z.policy').split('\n');
    expect(lines[3]).toBe('3 |   返回 信用 加上 1。');
    // `  返回 ` is 2 + 4 + 1 = 7 columns wide; `信用` is 4 columns.
    expect(lines[4]).toBe('  |        ^^^^');
  });

  it('handles CRLF line endings and a span running past the end of its line', () => {
    const source = 'Module demo.\r\nRule r produce Text:\r\n  Return "abc.\r\n';
    const start = source.indexOf('"abc');
    const span = { ...spanOf(source, '"abc'), end: source.length };
    const d = diagnostic('PL1002', 'unterminated string literal', { ...span, start });
    const lines = renderDiagnostic(d, source, 's.policy').split('\n');
    expect(lines[3]).toBe('3 |   Return "abc.');
    expect(lines[4]).toBe('  |          ^^^^^ …');
  });

  it('widens the gutter for line numbers with more digits', () => {
    const source = `Module demo.\n${'# filler\n'.repeat(10)}Rule r produce Int:\n  Return x.\n`;
    const d = diagnostic('PL2001', 'unknown name `x`', spanOf(source, 'x.', source.indexOf('Return')));
    const lines = renderDiagnostic({ ...d, span: { ...d.span!, end: d.span!.start + 1 } }, source, 'w.policy').split('\n');
    expect(lines.slice(1, 5)).toEqual(['  --> w.policy:13:10', '   |', '13 |   Return x.', '   |          ^']);
  });

  it('prints a diagnostic without a span with the file only', () => {
    const d = diagnostic('PL5002', 'missing value for `applicant.age` (expected `Int`)', null);
    expect(renderDiagnostic(d, 'Module x.\n', 'x.policy')).toBe(
      'error[PL5002]: missing value for `applicant.age` (expected `Int`)\n  --> x.policy\n',
    );
  });

  it('shows at least one caret for an empty span', () => {
    const source = 'Module demo.\nRule r produce Int:\n  Let x be 1\n  Return x.\n';
    const at = source.indexOf('1\n') + 1;
    const d = diagnostic('PL1007', 'missing `.`', { ...spanOf(source, '1\n'), start: at, end: at, column: 13, endColumn: 13 });
    expect(renderDiagnostic(d, source, 'e.policy').split('\n')[4]).toBe('  |             ^');
  });
});

describe('displayWidth', () => {
  it('counts CJK and full-width characters as two columns and tabs as four', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('年龄')).toBe(4);
    expect(displayWidth('ｍａｘ（')).toBe(8);
    expect(displayWidth('\tx')).toBe(5);
    expect(displayWidth('e\u0301')).toBe(1);
  });
});
