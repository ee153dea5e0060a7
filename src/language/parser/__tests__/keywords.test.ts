import { describe, expect, it } from 'vitest';
import { stripPositions } from '../../ast/index.js';
import type { Locale } from '../../api-types.js';
import { parse } from '../index.js';

/** A module with one rule whose body is `body` (already indented by the caller where needed). */
const RULE: Record<Locale, (body: string) => string> = {
  'en-US': (body) => `Module m.\nRule f produce Int:\n${body}\n`,
  'zh-CN': (body) => `模块 m。\n规则 f 产出 整数：\n${body}\n`,
  'de-DE': (body) => `Modul m.\nRegel f liefert Ganzzahl:\n${body}\n`,
};

interface Row {
  row: string;
  sources: Record<Locale, string>;
  /** A part of the en-US tree (without ids and spans) the row must produce. */
  expected: unknown;
}

const body = (en: string, zh: string, de: string): Record<Locale, string> => ({
  'en-US': RULE['en-US'](en),
  'zh-CN': RULE['zh-CN'](zh),
  'de-DE': RULE['de-DE'](de),
});

const ret = (en: string, zh: string, de: string): Record<Locale, string> =>
  body(`  Return ${en}.`, `  返回 ${zh}。`, `  Liefere ${de}.`);

const name = (n: string) => ({ kind: 'Name', name: n });
const int = (value: number) => ({ kind: 'IntLiteral', value });
const cmp = (op: string, left: unknown, right: unknown) => ({ kind: 'Compare', op, left, right });
const bin = (op: string, left: unknown, right: unknown) => ({ kind: 'Binary', op, left, right });
const firstStatement = (value: unknown) => ({ declarations: [{ body: [value] }] });
const returns = (value: unknown) => firstStatement({ kind: 'Return', value });

const ROWS: Row[] = [
  {
    row: 'module',
    sources: { 'en-US': 'Module a.b.c.\n', 'zh-CN': '模块 a.b.c。\n', 'de-DE': 'Modul a.b.c.\n' },
    expected: { kind: 'Module', name: ['a', 'b', 'c'], declarations: [] },
  },
  {
    row: 'define / has / as',
    sources: {
      'en-US': 'Module m.\nDefine P has x as Int, y as Text.\n',
      'zh-CN': '模块 m。\n定义 P 包含 x 为 整数，y 为 文本。\n',
      'de-DE': 'Modul m.\nDefiniere P mit x als Ganzzahl, y als Text.\n',
    },
    expected: {
      declarations: [
        {
          kind: 'RecordDecl',
          name: 'P',
          fields: [
            { name: 'x', type: { kind: 'PrimitiveType', name: 'Int' } },
            { name: 'y', type: { kind: 'PrimitiveType', name: 'Text' } },
          ],
        },
      ],
    },
  },
  {
    row: 'enum',
    sources: {
      'en-US': 'Module m.\nDefine T as one of A, B.\n',
      'zh-CN': '模块 m。\n定义 T 为以下之一 A、B。\n',
      'de-DE': 'Modul m.\nDefiniere T als eines von A, B.\n',
    },
    expected: { declarations: [{ kind: 'EnumDecl', name: 'T', variants: [{ name: 'A' }, { name: 'B' }] }] },
  },
  {
    row: 'rule / given / produce',
    sources: {
      'en-US': 'Module m.\nRule f given x as Int, y as Float, produce Int:\n  Return x.\nRule g produce Bool:\n  Return true.\n',
      'zh-CN': '模块 m。\n规则 f 给定 x 为 整数，y 为 小数，产出 整数：\n  返回 x。\n规则 g 产出 布尔：\n  返回 真。\n',
      'de-DE':
        'Modul m.\nRegel f gegeben x als Ganzzahl, y als Kommazahl, liefert Ganzzahl:\n  Liefere x.\nRegel g liefert Wahrheitswert:\n  Liefere wahr.\n',
    },
    expected: {
      declarations: [
        { kind: 'RuleDecl', name: 'f', params: [{ name: 'x' }, { name: 'y' }], returnType: { name: 'Int' } },
        { kind: 'RuleDecl', name: 'g', params: [], returnType: { name: 'Bool' } },
      ],
    },
  },
  {
    row: 'let / be',
    sources: body('  Let y be 1.\n  Return y.', '  令 y 为 1。\n  返回 y。', '  Sei y gleich 1.\n  Liefere y.'),
    expected: { declarations: [{ body: [{ kind: 'Let', name: 'y', value: int(1) }, { kind: 'Return', value: name('y') }] }] },
  },
  {
    row: 'return',
    sources: ret('7', '7', '7'),
    expected: returns(int(7)),
  },
  {
    row: 'if / else-if / else',
    sources: body(
      '  If a:\n    Return 1.\n  Otherwise if b:\n    Return 2.\n  Otherwise:\n    Return 3.',
      '  如果 a：\n    返回 1。\n  否则如果 b：\n    返回 2。\n  否则：\n    返回 3。',
      '  Wenn a:\n    Liefere 1.\n  Sonst wenn b:\n    Liefere 2.\n  Sonst:\n    Liefere 3.',
    ),
    expected: firstStatement({
      kind: 'If',
      branches: [{ condition: name('a') }, { condition: name('b') }],
      otherwise: [{ kind: 'Return', value: int(3) }],
    }),
  },
  {
    row: 'match / when',
    sources: body(
      '  Match t:\n    When A, T.B:\n      Return 1.\n    When -2, "x":\n      Return 2.\n    Otherwise:\n      Return 3.',
      '  匹配 t：\n    当 A、T.B：\n      返回 1。\n    当 -2，"x"：\n      返回 2。\n    否则：\n      返回 3。',
      '  Prüfe t:\n    Bei A, T.B:\n      Liefere 1.\n    Bei -2, "x":\n      Liefere 2.\n    Sonst:\n      Liefere 3.',
    ),
    expected: firstStatement({
      kind: 'Match',
      subject: name('t'),
      cases: [
        {
          patterns: [
            { kind: 'VariantPattern', enumName: null, variant: 'A' },
            { kind: 'VariantPattern', enumName: 'T', variant: 'B' },
          ],
        },
        {
          patterns: [
            { kind: 'IntPattern', value: -2 },
            { kind: 'TextPattern', value: 'x' },
          ],
        },
      ],
      otherwise: [{ kind: 'Return' }],
    }),
  },
  {
    row: 'for each / in',
    sources: body(
      '  For each x in xs:\n    Return x.',
      '  对于每个 x 在 xs 中：\n    返回 x。',
      '  Für jedes x in xs:\n    Liefere x.',
    ),
    expected: firstStatement({ kind: 'ForEach', variable: 'x', iterable: name('xs'), body: [{ kind: 'Return' }] }),
  },
  {
    row: 'fail',
    sources: body('  Fail with "no".', '  报错 "no"。', '  Scheitere mit "no".'),
    expected: firstStatement({ kind: 'Fail', message: { kind: 'TextLiteral', value: 'no' } }),
  },
  {
    row: 'record with / set to',
    sources: ret('P with x set to 1, y = "a"', 'P 其中 x 设为 1，y = "a"', 'P mit x auf 1, y = "a"'),
    expected: returns({
      kind: 'Record',
      typeName: 'P',
      fields: [
        { name: 'x', value: int(1) },
        { name: 'y', value: { kind: 'TextLiteral', value: 'a' } },
      ],
    }),
  },
  {
    row: 'and / or / not',
    sources: ret('a and b or not c', 'a 并且 b 或者 非 c', 'a und b oder nicht c'),
    expected: returns(bin('or', bin('and', name('a'), name('b')), { kind: 'Unary', op: 'not', operand: name('c') })),
  },
  {
    row: 'is / is not',
    sources: ret('a is b and a is not c', 'a 是 b 并且 a 不是 c', 'a ist b und a ist nicht c'),
    expected: returns(bin('and', cmp('eq', name('a'), name('b')), cmp('ne', name('a'), name('c')))),
  },
  {
    row: 'less / greater',
    sources: ret('a less than b and a is greater than c', 'a 小于 b 并且 a 大于 c', 'a kleiner als b und a ist größer als c'),
    expected: returns(bin('and', cmp('lt', name('a'), name('b')), cmp('gt', name('a'), name('c')))),
  },
  {
    row: 'at least / at most',
    sources: ret('a is at least b and a at most c', 'a 至少 b 并且 a 至多 c', 'a ist mindestens b und a höchstens c'),
    expected: returns(bin('and', cmp('ge', name('a'), name('b')), cmp('le', name('a'), name('c')))),
  },
  {
    row: 'between … and',
    sources: ret('a is between 1 and 2 plus 3', 'a 介于 1 与 2 加上 3', 'a ist zwischen 1 und 2 plus 3'),
    expected: returns({ kind: 'Between', value: name('a'), low: int(1), high: bin('add', int(2), int(3)) }),
  },
  {
    row: 'one of / contains',
    sources: ret('a is one of [1, 2] and b contains 3', 'a 属于 [1，2] 并且 b 含有 3', 'a ist eines von [1, 2] und b enthält 3'),
    expected: returns(
      bin('and', cmp('in', name('a'), { kind: 'List', elements: [int(1), int(2)] }), cmp('contains', name('b'), int(3))),
    ),
  },
  {
    row: 'plus / minus / times',
    sources: ret('a plus b minus c times d', 'a 加上 b 减去 c 乘以 d', 'a plus b minus c mal d'),
    expected: returns(bin('sub', bin('add', name('a'), name('b')), bin('mul', name('c'), name('d')))),
  },
  {
    row: 'divided by / modulo',
    sources: ret('a divided by b modulo c', 'a 除以 b 取模 c', 'a geteilt durch b modulo c'),
    expected: returns(bin('mod', bin('div', name('a'), name('b')), name('c'))),
  },
  {
    row: 'true / false',
    sources: ret('[true, false]', '[真，假]', '[wahr, falsch]'),
    expected: returns({
      kind: 'List',
      elements: [
        { kind: 'BoolLiteral', value: true },
        { kind: 'BoolLiteral', value: false },
      ],
    }),
  },
  {
    row: 'Int / Float / Text / Bool',
    sources: {
      'en-US': 'Module m.\nDefine P has a as Int, b as Float, c as Text, d as Bool.\n',
      'zh-CN': '模块 m。\n定义 P 包含 a 为 整数，b 为 小数，c 为 文本，d 为 布尔。\n',
      'de-DE': 'Modul m.\nDefiniere P mit a als Ganzzahl, b als Kommazahl, c als Text, d als Wahrheitswert.\n',
    },
    expected: {
      declarations: [
        {
          fields: ['Int', 'Float', 'Text', 'Bool'].map((type) => ({ type: { kind: 'PrimitiveType', name: type } })),
        },
      ],
    },
  },
  {
    row: 'List of T',
    sources: {
      'en-US': 'Module m.\nDefine P has a as List of List of Q.\n',
      'zh-CN': '模块 m。\n定义 P 包含 a 为 列表 列表 Q。\n',
      'de-DE': 'Modul m.\nDefiniere P mit a als Liste von Liste von Q.\n',
    },
    expected: {
      declarations: [
        {
          fields: [
            { type: { kind: 'ListType', element: { kind: 'ListType', element: { kind: 'NamedType', name: 'Q' } } } },
          ],
        },
      ],
    },
  },
];

describe('every keyword row of docs/language.md §9', () => {
  it.each(ROWS)('$row: parses alike in en-US, zh-CN and de-DE', ({ sources, expected }) => {
    const trees = (['en-US', 'zh-CN', 'de-DE'] as const).map((locale) => {
      const result = parse(sources[locale], locale);
      expect(result.diagnostics, locale).toEqual([]);
      return stripPositions(result.module);
    });
    expect(trees[0]).toMatchObject(expected as object);
    expect(trees[1]).toEqual(trees[0]);
    expect(trees[2]).toEqual(trees[0]);
  });
});

describe('keyword spelling variants', () => {
  const tree = (source: string, locale: Locale) => {
    const result = parse(source, locale);
    expect(result.diagnostics).toEqual([]);
    return stripPositions(result.module);
  };

  it('matches en-US and de-DE keywords in any letter case', () => {
    expect(tree('MODULE m.\nrule f PRODUCE int:\n  IF a IS AT LEAST 1:\n    return 1.\n  otherwise IF b:\n    RETURN 2.\n', 'en-US')).toEqual(
      tree('Module m.\nRule f produce Int:\n  If a is at least 1:\n    Return 1.\n  Otherwise if b:\n    Return 2.\n', 'en-US'),
    );
    expect(tree('modul m.\nREGEL f LIEFERT ganzzahl:\n  SEI x GLEICH 1.\n  liefere x.\n', 'de-DE')).toEqual(
      tree('Modul m.\nRegel f liefert Ganzzahl:\n  Sei x gleich 1.\n  Liefere x.\n', 'de-DE'),
    );
  });

  it('accepts German ASCII spellings of keywords', () => {
    const ascii = RULE['de-DE']('  Pruefe t:\n    Bei A:\n      Liefere a groesser als b und a hoechstens c und xs enthaelt a.\n  Fuer jedes x in xs:\n    Liefere 1.');
    const umlaut = RULE['de-DE']('  Prüfe t:\n    Bei A:\n      Liefere a größer als b und a höchstens c und xs enthält a.\n  Für jedes x in xs:\n    Liefere 1.');
    expect(tree(ascii, 'de-DE')).toEqual(tree(umlaut, 'de-DE'));
  });

  it('makes the leading `is`/`ist` optional before comparatives in en-US and de-DE', () => {
    for (const [withIs, without] of [
      ['a is less than b', 'a less than b'],
      ['a is greater than b', 'a greater than b'],
      ['a is at least b', 'a at least b'],
      ['a is at most b', 'a at most b'],
      ['a is between b and c', 'a between b and c'],
    ]) {
      expect(tree(RULE['en-US'](`  Return ${withIs}.`), 'en-US')).toEqual(tree(RULE['en-US'](`  Return ${without}.`), 'en-US'));
    }
    expect(tree(RULE['de-DE']('  Liefere a ist kleiner als b.'), 'de-DE')).toEqual(
      tree(RULE['de-DE']('  Liefere a kleiner als b.'), 'de-DE'),
    );
  });

  it('has no optional `是` before comparatives in zh-CN', () => {
    const result = parse(RULE['zh-CN']('  返回 a 是 小于 b。'), 'zh-CN');
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PL1006']);
  });
});
