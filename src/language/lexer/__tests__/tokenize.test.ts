import { describe, expect, it } from 'vitest';
import type { Locale } from '../../api-types.js';
import { checkSourceSize, tokenize, type Token } from '../index.js';

function kinds(source: string, locale: Locale = 'en-US'): string[] {
  return tokenize(source, locale).tokens.map((token) => token.kind);
}

function significant(source: string, locale: Locale = 'en-US'): Token[] {
  return tokenize(source, locale).tokens.filter(
    (token) => !['newline', 'indent', 'dedent', 'eof'].includes(token.kind),
  );
}

function underlined(source: string, locale: Locale = 'en-US'): [string, string][] {
  return tokenize(source, locale).diagnostics.map((d) => [d.code, source.slice(d.span!.start, d.span!.end)]);
}

describe('tokenize: normalisation', () => {
  it('maps full-width punctuation, digits and letters while spans keep pointing into the original text', () => {
    const source = '令 ｘ 为 １２。';
    const tokens = significant(source, 'zh-CN');
    expect(tokens.map((t) => [t.kind, t.text])).toEqual([
      ['keyword', '令'],
      ['ident', 'x'],
      ['keyword', '为'],
      ['int', '12'],
      ['term', '.'],
    ]);
    expect(tokens.map((t) => source.slice(t.start, t.end))).toEqual(['令', 'ｘ', '为', '１２', '。']);
    expect(tokens[3]!.value).toBe(12);
  });

  it('maps `：` `，` `、` `（）` `【】` to their ASCII forms', () => {
    expect(significant('（a，b、c）【】：', 'zh-CN').map((t) => t.kind)).toEqual([
      'lparen',
      'ident',
      'comma',
      'ident',
      'comma',
      'ident',
      'rparen',
      'lbracket',
      'rbracket',
      'colon',
    ]);
  });

  it('leaves the content of strings and comments as written', () => {
    const { tokens, comments } = tokenize('Return "１：２"。 # 注：１\n', 'en-US');
    expect(tokens.find((t) => t.kind === 'string')!.value).toBe('１：２');
    expect(comments[0]!.text).toBe('注：１');
  });

  it('reports control characters and unpaired surrogates (PL1017)', () => {
    expect(underlined('Let x be 1.\u0007\n')).toEqual([['PL1017', '\u0007']]);
    expect(underlined('Let x be \uD800.\n')).toEqual([['PL1017', '\uD800']]);
    expect(underlined('a\rb\n')).toEqual([['PL1017', '\r']]);
  });

  it('accepts CRLF line ends and a byte-order mark', () => {
    const result = tokenize('\uFEFFModule a.\r\nRule f produce Int:\r\n  Return 1.\r\n', 'en-US');
    expect(result.diagnostics).toEqual([]);
    expect(result.tokens[0]!.column).toBe(1);
    expect(result.tokens.map((t) => t.kind)).toContain('indent');
  });
});

describe('tokenize: literals', () => {
  it('reads strings in "…", 「…」 and “…” with escapes', () => {
    const values = significant('"a\\"b\\\\c\\nd\\te\\u{4E2D}\\u{1F600}" 「x」 “y”').map((t) => t.value);
    expect(values).toEqual(['a"b\\c\nd\te中😀', 'x', 'y']);
  });

  it('reports unterminated strings and invalid escapes with the offending text', () => {
    expect(underlined('Return "abc\n')).toEqual([['PL1002', '"abc']]);
    expect(underlined('"a\\qb"')).toEqual([['PL1003', '\\q']]);
    expect(underlined('"\\u{110000}"')).toEqual([['PL1003', '\\u{110000}']]);
    expect(underlined('"\\u{D800}"')).toEqual([['PL1003', '\\u{D800}']]);
    expect(underlined('"\\u{}"')).toEqual([['PL1003', '\\u{}']]);
  });

  it('reads Int and Float literals with `_` separators', () => {
    const tokens = significant('42 1_000_000 12.5 0.25 1_0.0_1');
    expect(tokens.map((t) => [t.kind, t.value])).toEqual([
      ['int', 42],
      ['int', 1000000],
      ['float', 12.5],
      ['float', 0.25],
      ['float', 10.01],
    ]);
  });

  it('accepts Int literals up to 2^53−1 and reports larger ones (PL1012)', () => {
    expect(significant('9007199254740991')[0]!.value).toBe(9007199254740991);
    expect(underlined('9007199254740992')).toEqual([['PL1012', '9007199254740992']]);
    expect(underlined('99_999_999_999_999_999')).toEqual([['PL1012', '99_999_999_999_999_999']]);
  });

  it('reports malformed numbers (PL1012)', () => {
    expect(underlined('1__0 2_ 3_.5 18岁 12abc')).toEqual([
      ['PL1012', '1__0'],
      ['PL1012', '2_'],
      ['PL1012', '3_.5'],
      ['PL1012', '18岁'],
      ['PL1012', '12abc'],
    ]);
  });
});

describe('tokenize: names, keywords and punctuation', () => {
  it('reads Unicode identifiers and backtick names', () => {
    const tokens = significant('年龄 _x1 größe `in` `结果`');
    expect(tokens.map((t) => [t.kind, t.text])).toEqual([
      ['ident', '年龄'],
      ['ident', '_x1'],
      ['ident', 'größe'],
      ['ident', 'in'],
      ['ident', '结果'],
    ]);
    expect(tokens[3]!.end - tokens[3]!.start).toBe(4);
  });

  it('reports unterminated and invalid backtick names', () => {
    expect(underlined('`abc\n')).toEqual([['PL1014', '`abc']]);
    expect(underlined('`a b`')).toEqual([['PL1018', '`a b`']]);
    expect(underlined('``')).toEqual([['PL1018', '``']]);
  });

  it('reads multi-word keywords as one token, longest match first', () => {
    const tokens = significant('x is not y is at least z less than w Otherwise if v as one of');
    expect(tokens.filter((t) => t.kind === 'keyword').map((t) => [t.text, t.concepts])).toEqual([
      ['is not', ['ne']],
      ['is at least', ['ge']],
      ['less than', ['lt']],
      ['Otherwise if', ['elseIf']],
      ['as one of', ['enumOneOf']],
    ]);
  });

  it('keeps a word that only starts a multi-word keyword as a name', () => {
    expect(significant('less at set').map((t) => t.kind)).toEqual(['ident', 'ident', 'ident']);
    expect(significant('set set to').map((t) => [t.kind, t.text])).toEqual([
      ['ident', 'set'],
      ['keyword', 'set to'],
    ]);
    expect(significant('isolated is iffy').map((t) => t.kind)).toEqual(['ident', 'keyword', 'ident']);
  });

  it('matches keywords regardless of case in en-US and de-DE, exactly in zh-CN', () => {
    expect(significant('OTHERWISE IF rETURN').map((t) => t.concepts)).toEqual([['elseIf'], ['return']]);
    expect(significant('SONST WENN liefere', 'de-DE').map((t) => t.concepts)).toEqual([['elseIf'], ['return']]);
    expect(significant('Return', 'zh-CN')[0]!.kind).toBe('ident');
  });

  it('accepts German ASCII spellings for keywords but keeps names as written', () => {
    const tokens = significant('Pruefe groesser als hoechstens Fuer jedes enthaelt Größe', 'de-DE');
    expect(tokens.map((t) => t.concepts)).toEqual([['match'], ['gt'], ['le'], ['forEach'], ['contains'], null]);
    expect(tokens[5]!.text).toBe('Größe');
  });

  it('treats `.` as a terminator only before white space, a comment or the end of input', () => {
    expect(kinds('a.b.')).toEqual(['ident', 'dot', 'ident', 'term', 'newline', 'eof']);
    expect(kinds('a. b')).toEqual(['ident', 'term', 'ident', 'newline', 'eof']);
    expect(kinds('a.#c')).toEqual(['ident', 'term', 'newline', 'eof']);
    expect(kinds('a.//c')).toEqual(['ident', 'term', 'newline', 'eof']);
    expect(kinds('1.5.')).toEqual(['float', 'term', 'newline', 'eof']);
    expect(kinds('1.x')).toEqual(['int', 'dot', 'ident', 'newline', 'eof']);
  });

  it('reads symbol operators', () => {
    expect(significant('== != <= >= < > = + - * / %').map((t) => t.kind)).toEqual([
      'eq',
      'ne',
      'le',
      'ge',
      'lt',
      'gt',
      'assign',
      'plus',
      'minus',
      'star',
      'slash',
      'percent',
    ]);
  });

  it('reports unexpected characters (PL1001) and goes on', () => {
    const result = tokenize("a ; b 'c'", 'en-US');
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PL1001', 'PL1001', 'PL1001']);
    expect(result.diagnostics[1]!.help).toContain('double quotes');
    expect(result.tokens.filter((t) => t.kind === 'ident').map((t) => t.text)).toEqual(['a', 'b', 'c']);
  });
});

describe('tokenize: comments and layout', () => {
  it('collects `#` and `//` comments, marking whole-line ones', () => {
    const { comments } = tokenize('# one\nx // two\n  //three  \n', 'en-US');
    expect(comments.map((c) => [c.text, c.ownLine, c.line])).toEqual([
      ['one', true, 1],
      ['two', false, 2],
      ['three', true, 3],
    ]);
  });

  it('emits indent and dedent tokens for 2-space blocks, ignoring blank and comment lines', () => {
    const source = 'a:\n  b:\n    c\n\n      # deep comment\n  d\ne\n';
    expect(kinds(source)).toEqual([
      'ident',
      'colon',
      'newline',
      'indent',
      'ident',
      'colon',
      'newline',
      'indent',
      'ident',
      'newline',
      'dedent',
      'ident',
      'newline',
      'dedent',
      'ident',
      'newline',
      'eof',
    ]);
  });

  it('closes open blocks at the end of input', () => {
    expect(kinds('a:\n  b:\n    c')).toEqual([
      'ident',
      'colon',
      'newline',
      'indent',
      'ident',
      'colon',
      'newline',
      'indent',
      'ident',
      'newline',
      'dedent',
      'dedent',
      'eof',
    ]);
  });

  it('reports a tab in indentation (PL1004) and bad indentation (PL1005)', () => {
    expect(underlined('a:\n\tb\n')).toEqual([['PL1004', '\t']]);
    expect(underlined('a:\n   b\n')).toEqual([['PL1005', '   ']]);
    expect(underlined('a:\n    b\n')).toEqual([['PL1005', '    ']]);
  });

  it('gives tokens 1-based lines and columns', () => {
    const tokens = significant('a\n  bc');
    expect(tokens[1]).toMatchObject({ line: 2, column: 3, endLine: 2, endColumn: 5 });
  });
});

describe('checkSourceSize', () => {
  it('accepts 64 KiB of UTF-8 and rejects one byte more (PL4001)', () => {
    expect(checkSourceSize('a'.repeat(65536))).toBeNull();
    const tooBig = 'a'.repeat(65535) + 'é';
    const diagnostic = checkSourceSize(tooBig)!;
    expect(diagnostic.code).toBe('PL4001');
    expect(tooBig.slice(diagnostic.span!.start, diagnostic.span!.end)).toBe('é');
  });

  it('counts bytes, not characters', () => {
    expect(checkSourceSize('中'.repeat(21845))).toBeNull();
    expect(checkSourceSize('中'.repeat(21846))!.code).toBe('PL4001');
  });
});
