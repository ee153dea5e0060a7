import { describe, expect, it } from 'vitest';
import { parse } from '../index.js';
import { inRule, parseOk, problems, returned } from './test-support.js';

const name = (n: string) => ({ kind: 'Name', name: n });
const int = (value: number) => ({ kind: 'IntLiteral', value });
const bin = (op: string, left: unknown, right: unknown) => ({ kind: 'Binary', op, left, right });
const cmp = (op: string, left: unknown, right: unknown) => ({ kind: 'Compare', op, left, right });
const not = (operand: unknown) => ({ kind: 'Unary', op: 'not', operand });
const neg = (operand: unknown) => ({ kind: 'Unary', op: 'neg', operand });

describe('expression precedence (docs/language.md §5)', () => {
  it('binds or < and < not < comparison < additive < multiplicative < unary minus < postfix', () => {
    expect(returned('a or b and not c is d plus e times -f.g')).toEqual(
      bin(
        'or',
        name('a'),
        bin('and', name('b'), not(cmp('eq', name('c'), bin('add', name('d'), bin('mul', name('e'), neg({ kind: 'FieldAccess', object: name('f'), field: 'g' })))))),
      ),
    );
  });

  it('associates arithmetic and logic to the left', () => {
    expect(returned('a - b - c')).toEqual(bin('sub', bin('sub', name('a'), name('b')), name('c')));
    expect(returned('a / b * c % d')).toEqual(bin('mod', bin('mul', bin('div', name('a'), name('b')), name('c')), name('d')));
    expect(returned('a or b or c')).toEqual(bin('or', bin('or', name('a'), name('b')), name('c')));
  });

  it('honours parentheses', () => {
    expect(returned('(a plus b) times c')).toEqual(bin('mul', bin('add', name('a'), name('b')), name('c')));
    expect(returned('not (a and b)')).toEqual(not(bin('and', name('a'), name('b'))));
    expect(returned('(a < b) is true')).toEqual(cmp('eq', cmp('lt', name('a'), name('b')), { kind: 'BoolLiteral', value: true }));
  });

  it('includes the parentheses in the span of a parenthesised expression', () => {
    const source = inRule('  Return (a plus b) times c.');
    const rule = parseOk(source).declarations[0]!;
    if (rule.kind !== 'RuleDecl' || rule.body[0]!.kind !== 'Return') throw new Error('expected `Return`');
    const product = rule.body[0].value;
    if (product.kind !== 'Binary') throw new Error('expected a product');
    expect(source.slice(product.left.span.start, product.left.span.end)).toBe('(a plus b)');
    expect(source.slice(product.span.start, product.span.end)).toBe('(a plus b) times c');
  });

  it('maps every comparison word and symbol', () => {
    const ops: [string, string][] = [
      ['a is b', 'eq'],
      ['a == b', 'eq'],
      ['a is not b', 'ne'],
      ['a != b', 'ne'],
      ['a < b', 'lt'],
      ['a > b', 'gt'],
      ['a >= b', 'ge'],
      ['a <= b', 'le'],
      ['a is one of b', 'in'],
      ['a contains b', 'contains'],
    ];
    for (const [text, op] of ops) expect(returned(text)).toEqual(cmp(op, name('a'), name('b')));
  });

  it('parses `is between` with additive bounds', () => {
    expect(returned('x is between a plus 1 and b times 2 and ok')).toEqual(
      bin(
        'and',
        { kind: 'Between', value: name('x'), low: bin('add', name('a'), int(1)), high: bin('mul', name('b'), int(2)) },
        name('ok'),
      ),
    );
  });

  it('reports chained comparisons (PL1015) over the whole chain', () => {
    expect(problems(inRule('  Return 1 < x < 5.'))).toEqual([['PL1015', '1 < x < 5']]);
    expect(problems(inRule('  Return a is b is c.'))).toEqual([['PL1015', 'a is b is c']]);
    expect(problems(inRule('  Return x between 1 and 2 is true.'))).toEqual([['PL1015', 'x between 1 and 2 is true']]);
  });

  it('reads unary minus on any operand', () => {
    expect(returned('-5')).toEqual(neg(int(5)));
    expect(returned('a minus -b')).toEqual(bin('sub', name('a'), neg(name('b'))));
    expect(returned('- -a')).toEqual(neg(neg(name('a'))));
  });
});

describe('primary expressions', () => {
  it('reads literals', () => {
    expect(returned('[1, 2.5, "t", true, false, []]')).toEqual({
      kind: 'List',
      elements: [
        int(1),
        { kind: 'FloatLiteral', value: 2.5 },
        { kind: 'TextLiteral', value: 't' },
        { kind: 'BoolLiteral', value: true },
        { kind: 'BoolLiteral', value: false },
        { kind: 'List', elements: [] },
      ],
    });
  });

  it('keeps `12.0` a Float', () => {
    expect(returned('12.0')).toEqual({ kind: 'FloatLiteral', value: 12 });
  });

  it('reads calls and chained field access', () => {
    expect(returned('f(a, g()).b.c')).toEqual({
      kind: 'FieldAccess',
      field: 'c',
      object: {
        kind: 'FieldAccess',
        field: 'b',
        object: { kind: 'Call', callee: 'f', args: [name('a'), { kind: 'Call', callee: 'g', args: [] }] },
      },
    });
  });

  it('reads bare and qualified enum variants (the qualified one as field access)', () => {
    expect(returned('[Prime, Tier.Prime]')).toEqual({
      kind: 'List',
      elements: [name('Prime'), { kind: 'FieldAccess', object: name('Tier'), field: 'Prime' }],
    });
  });

  it('calls the built-in `text` although `Text` is a keyword in en-US and de-DE', () => {
    const call = { kind: 'Call', callee: 'text', args: [int(1)] };
    expect(returned('text(1)')).toEqual(call);
    expect(returned('text(1)', 'de-DE')).toEqual(call);
    expect(returned('text(1)', 'zh-CN')).toEqual(call);
    expect(problems(inRule('  Return Text(1).'))).toEqual([['PL1013', 'Text']]);
  });

  it('accepts keywords as names in backticks', () => {
    expect(returned('`in` plus `Return`(`is`)')).toEqual(bin('add', name('in'), { kind: 'Call', callee: 'Return', args: [name('is')] }));
    expect(returned('`结果`', 'zh-CN')).toEqual(name('结果'));
  });
});

describe('record construction', () => {
  const record = (typeName: string, fields: [string, unknown][]) => ({
    kind: 'Record',
    typeName,
    fields: fields.map(([n, value]) => ({ kind: 'FieldInit', name: n, value })),
  });

  it('reads `set to` and `=`', () => {
    expect(returned('P with a set to 1, b = 2')).toEqual(record('P', [['a', int(1)], ['b', int(2)]]));
  });

  it('takes a whole expression as a field value', () => {
    expect(returned('P with ok set to a is b and c, n set to 1 plus 2')).toEqual(
      record('P', [
        ['ok', bin('and', cmp('eq', name('a'), name('b')), name('c'))],
        ['n', bin('add', int(1), int(2))],
      ]),
    );
  });

  it('ends the record at a comma not followed by `name set to` or `name =`', () => {
    expect(returned('[P with a set to 1, b, Q with c = 2, d set to 3]')).toEqual({
      kind: 'List',
      elements: [record('P', [['a', int(1)]]), name('b'), record('Q', [['c', int(2)], ['d', int(3)]])],
    });
    expect(returned('f(P with a = 1, 2)')).toEqual({ kind: 'Call', callee: 'f', args: [record('P', [['a', int(1)]]), int(2)] });
  });

  it('lets a nested record take the following fields', () => {
    expect(returned('P with a set to Q with b set to 1, c set to 2')).toEqual(
      record('P', [['a', record('Q', [['b', int(1)], ['c', int(2)]])]]),
    );
    expect(returned('P with a set to (Q with b set to 1), c set to 2')).toEqual(
      record('P', [
        ['a', record('Q', [['b', int(1)]])],
        ['c', int(2)],
      ]),
    );
  });

  it('uses the locale words in zh-CN and de-DE', () => {
    const expected = record('P', [['a', int(1)], ['b', int(2)]]);
    expect(returned('P 其中 a 设为 1，b 设为 2', 'zh-CN')).toEqual(expected);
    expect(returned('P mit a auf 1, b auf 2', 'de-DE')).toEqual(expected);
  });
});

describe('statements', () => {
  it('reads Match patterns: variants, negative Ints and Texts', () => {
    const module = parseOk(inRule('  Match x:\n    When A, T.B, -3, 4, "s":\n      Return 1.'));
    const rule = module.declarations[0]!;
    if (rule.kind !== 'RuleDecl' || rule.body[0]!.kind !== 'Match') throw new Error('expected `Match`');
    expect(rule.body[0].cases[0]!.patterns.map((p) => ({ ...p, id: undefined, span: undefined }))).toEqual([
      { kind: 'VariantPattern', enumName: null, variant: 'A', id: undefined, span: undefined },
      { kind: 'VariantPattern', enumName: 'T', variant: 'B', id: undefined, span: undefined },
      { kind: 'IntPattern', value: -3, id: undefined, span: undefined },
      { kind: 'IntPattern', value: 4, id: undefined, span: undefined },
      { kind: 'TextPattern', value: 's', id: undefined, span: undefined },
    ]);
  });

  it('rejects a Float or Bool pattern', () => {
    expect(problems(inRule('  Match x:\n    When 1.5:\n      Return 1.'))).toEqual([['PL1006', '1.5']]);
    expect(problems(inRule('  Match x:\n    When true:\n      Return 1.'))).toEqual([['PL1006', 'true']]);
  });

  it('accepts `produce` without a comma after the last parameter', () => {
    const module = parseOk('Module m.\nRule f given a as Int produce Int:\n  Return a.\n');
    expect(module.declarations[0]).toMatchObject({ kind: 'RuleDecl', params: [{ name: 'a' }] });
  });

  it('keeps full-line comments as leading and trailing comments, end-of-line ones with their line', () => {
    const source = [
      '# about the module',
      'Module m. # header note',
      '',
      '# the rule',
      'Rule f produce Int: // rule note',
      '  # first',
      '  Let x be 1. # x note',
      '  If x is 1:',
      '    Return 1.',
      '  # before otherwise',
      '  Otherwise: # on otherwise',
      '    Return 2.',
      '# at the end',
      '',
    ].join('\n');
    const module = parseOk(source);
    expect(module.leadingComments).toEqual(['about the module', 'header note']);
    expect(module.trailingComments).toEqual(['at the end']);
    const rule = module.declarations[0]!;
    if (rule.kind !== 'RuleDecl' || rule.body[1]!.kind !== 'If') throw new Error('expected a rule with `If`');
    expect(rule.leadingComments).toEqual(['the rule', 'rule note']);
    expect(rule.body[0]!.leadingComments).toEqual(['first', 'x note']);
    expect(rule.body[1].otherwise![0]!.leadingComments).toEqual(['before otherwise', 'on otherwise']);
  });

  it('reads a zh-CN For each with its closing `中`', () => {
    const module = parseOk(inRule('  对于每个 项 在 列表值 中：\n    返回 项。', 'zh-CN'), 'zh-CN');
    expect(module.declarations[0]).toMatchObject({ body: [{ kind: 'ForEach', variable: '项', iterable: { name: '列表值' } }] });
    expect(problems(inRule('  对于每个 项 在 xs：\n    返回 项。', 'zh-CN'), 'zh-CN')).toEqual([['PL1006', '：']]);
    expect(parse(inRule('  对于每个 项 在 xs：\n    返回 项。', 'zh-CN'), 'zh-CN').diagnostics[0]!.message).toBe('expected `中`, found `：`');
  });

  it('parses an empty module header alone', () => {
    expect(parse('Module only.\n', 'en-US')).toMatchObject({ diagnostics: [], module: { name: ['only'], declarations: [] } });
  });
});
