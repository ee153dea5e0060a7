import { describe, expect, it } from 'vitest';
import type { ModuleNode } from '../../ast/nodes.js';
import { stripPositions } from '../../ast/index.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { parse } from '../../parser/index.js';
import { check } from '../index.js';

function parsed(lines: string[]): { module: ModuleNode; source: string } {
  const source = lines.join('\n') + '\n';
  const result = parse(source, 'en-US');
  expect(result.diagnostics, 'test source must parse').toEqual([]);
  return { module: result.module!, source };
}

/** Checker diagnostics with the underlined source text, for readable assertions. */
function problems(lines: string[]): (Diagnostic & { text: string | null })[] {
  const { module, source } = parsed(lines);
  return check(module).diagnostics.map((d) => ({ ...d, text: d.span ? source.slice(d.span.start, d.span.end) : null }));
}

function errorCodes(lines: string[]): string[] {
  return problems(lines)
    .filter((d) => d.severity === 'error')
    .map((d) => d.code);
}

function single(lines: string[]) {
  const all = problems(lines).filter((d) => d.severity === 'error');
  expect(all, JSON.stringify(all, null, 2)).toHaveLength(1);
  return all[0]!;
}

describe('check: a valid module', () => {
  const lines = [
    'Module lending.demo.',
    'Define Applicant has age as Int, creditScore as Int, annualIncome as Float, tier as Tier.',
    'Define Tier as one of Prime, Standard, Subprime.',
    'Define Decision has approved as Bool, reason as Text, rateBps as Int, limits as List of Int.',
    'Rule baseRate given score as Int, produce Int:',
    '  If score is at least 740:',
    '    Return 425.',
    '  Otherwise:',
    '    Return 675.',
    'Rule evaluate given applicant as Applicant, amount as Int, produce Decision:',
    '  Let rate be baseRate(applicant.creditScore).',
    '  Match applicant.tier:',
    '    When Prime:',
    '      Let rate be rate minus 50.',
    '    When Tier.Subprime:',
    '      Let rate be rate plus 100.',
    '  Let total be 0.',
    '  For each limit in [1000, amount]:',
    '    Let total be total plus limit.',
    '  Return Decision with approved set to true, reason set to "ok", rateBps set to rate, limits set to [total].',
  ];

  it('accepts it and records a type for every expression by node id', () => {
    const { module } = parsed(lines);
    const { checked, diagnostics } = check(module);
    expect(diagnostics).toEqual([]);
    expect(checked).not.toBeNull();
    const evaluate = module.declarations.find((d) => d.kind === 'RuleDecl' && d.name === 'evaluate');
    if (evaluate?.kind !== 'RuleDecl') throw new Error('rule missing');
    const ret = evaluate.body[4]!;
    if (ret.kind !== 'Return') throw new Error('return missing');
    expect(checked!.types.get(ret.value.id)).toEqual({ kind: 'Record', name: 'Decision' });
    const first = evaluate.body[0]!;
    if (first.kind !== 'Let') throw new Error('let missing');
    expect(checked!.types.get(first.value.id)).toEqual({ kind: 'Int' });
  });

  it('never changes the tree', () => {
    const { module } = parsed(lines);
    const before = JSON.stringify(module);
    check(module);
    expect(JSON.stringify(module)).toBe(before);
  });

  it('orders rules callees first and gives each variable its own slot', () => {
    const { checked } = check(parsed(lines).module);
    expect(checked!.callOrder).toEqual(['baseRate', 'evaluate']);
    const rule = checked!.rules.get('evaluate')!;
    expect(rule.slotNames).toEqual(['applicant', 'amount', 'rate', 'total', 'limit']);
    expect(rule.params.map((p) => p.type)).toEqual([{ kind: 'Record', name: 'Applicant' }, { kind: 'Int' }]);
  });

  it('resolves bare and qualified variants to the same index', () => {
    const { module } = parsed(['Module m.', 'Define Tier as one of A, B.', 'Rule r produce List of Tier:', '  Return [B, Tier.B].']);
    const { checked } = check(module);
    const rule = module.declarations[1]!;
    if (rule.kind !== 'RuleDecl' || rule.body[0]!.kind !== 'Return' || rule.body[0]!.value.kind !== 'List') throw new Error('shape');
    const [bare, qualified] = rule.body[0]!.value.elements;
    expect(checked!.resolutions.get(bare!.id)).toEqual({ kind: 'variant', enumName: 'Tier', index: 1 });
    expect(checked!.resolutions.get(qualified!.id)).toEqual({ kind: 'variant', enumName: 'Tier', index: 1 });
  });
});

describe('check: names and declarations', () => {
  it('PL2001 unknown name, with a did-you-mean hint', () => {
    const d = single(['Module m.', 'Rule r given score as Int, produce Int:', '  Return scor + 1.']);
    expect(d).toMatchObject({ code: 'PL2001', text: 'scor', message: 'unknown name `scor`; did you mean `score`?' });
  });

  it('PL2001 a type or a rule used as a value', () => {
    expect(single(['Module m.', 'Define P has x as Int.', 'Rule r produce Int:', '  Return P.'])).toMatchObject({ code: 'PL2001', message: '`P` is a record type, not a value' });
    expect(single(['Module m.', 'Rule q produce Int:', '  Return 1.', 'Rule r produce Int:', '  Return q.'])).toMatchObject({ code: 'PL2001', message: '`q` is a rule, not a value' });
  });

  it('PL2001 unknown qualified variant', () => {
    const d = single(['Module m.', 'Define Tier as one of Prime, Standard.', 'Rule r produce Tier:', '  Return Tier.Prme.']);
    expect(d).toMatchObject({ code: 'PL2001', text: 'Tier.Prme' });
    expect(d.message).toContain('did you mean `Prime`');
  });

  it('PL2002 unknown type, with a did-you-mean hint', () => {
    const d = single(['Module m.', 'Define Applicant has age as Int.', 'Rule r given a as Aplicant, produce Int:', '  Return 1.']);
    expect(d).toMatchObject({ code: 'PL2002', text: 'Aplicant', message: 'unknown type `Aplicant`; did you mean `Applicant`?' });
  });

  it('PL2002 a record construction naming no record', () => {
    expect(single(['Module m.', 'Define T as one of A.', 'Rule r produce Int:', '  Let x be T with a set to 1.', '  Return 1.']).code).toBe('PL2002');
  });

  it('PL2003 duplicate declaration names across records, enums and rules', () => {
    const d = single(['Module m.', 'Define Point has x as Int.', 'Define Point as one of A, B.', 'Rule r produce Int:', '  Return 1.']);
    expect(d.code).toBe('PL2003');
    expect(d.message).toBe('`Point` is already declared as a record on line 2');
  });

  it('PL2004 duplicate field and parameter names', () => {
    expect(single(['Module m.', 'Define P has x as Int, x as Float.', 'Rule r produce Int:', '  Return 1.'])).toMatchObject({ code: 'PL2004', text: 'x as Float' });
    expect(single(['Module m.', 'Rule r given a as Int, a as Text, produce Int:', '  Return 1.']).code).toBe('PL2004');
  });

  it('PL2005 a variant name used by two enums', () => {
    const d = single(['Module m.', 'Define Color as one of Red, Green.', 'Define Light as one of Green, Amber.', 'Rule r produce Int:', '  Return 1.']);
    expect(d).toMatchObject({ code: 'PL2005', text: 'Green' });
    expect(d.message).toContain('in `Color` and in `Light`');
  });

  it('PL2022 a record that contains itself, but not through a list', () => {
    expect(errorCodes(['Module m.', 'Define A has b as B.', 'Define B has a as A.', 'Rule r produce Int:', '  Return 1.'])).toEqual(['PL2022']);
    expect(errorCodes(['Module m.', 'Define T has v as Int, kids as List of T.', 'Rule r produce Int:', '  Return 1.'])).toEqual([]);
  });

  it('local names shadow enum variants', () => {
    const { module } = parsed(['Module m.', 'Define T as one of A, B.', 'Rule r given A as Int, produce Int:', '  Return A + 1.']);
    expect(check(module).diagnostics).toEqual([]);
  });
});

describe('check: types', () => {
  it('PL2006 a Float where an Int is produced, with help', () => {
    const d = single(['Module m.', 'Rule r given n as Int, produce Int:', '  Return n / 2.']);
    expect(d).toMatchObject({ code: 'PL2006', text: 'n / 2', message: 'rule `r` produces `Int`, but this returns `Float`' });
    expect(d.help).toContain('`round`, `floor` or `ceil`');
  });

  it('PL2006 wrong argument, record field and list element types', () => {
    expect(single(['Module m.', 'Rule t given n as Int, produce Int:', '  Return n.', 'Rule r produce Int:', '  Return t(1.5).'])).toMatchObject({ code: 'PL2006', text: '1.5' });
    expect(single(['Module m.', 'Define P has x as Int.', 'Rule r produce P:', '  Return P with x set to "one".'])).toMatchObject({ code: 'PL2006', text: '"one"' });
    expect(single(['Module m.', 'Rule r produce List of Int:', '  Return [1, "two"].'])).toMatchObject({ code: 'PL2006', text: '"two"' });
    expect(single(['Module m.', 'Rule r produce Int:', '  Fail with 3.'])).toMatchObject({ code: 'PL2006', text: '3' });
  });

  it('PL2006 built-in argument types and result types', () => {
    expect(single(['Module m.', 'Rule r produce Float:', '  Return sqrt("x").'])).toMatchObject({ code: 'PL2006', text: '"x"' });
    expect(single(['Module m.', 'Rule r produce Int:', '  Return round(2.5, 1).'])).toMatchObject({ code: 'PL2006', text: 'round(2.5, 1)' });
    expect(single(['Module m.', 'Rule r produce Text:', '  Return text([1]).'])).toMatchObject({ code: 'PL2006', text: '[1]' });
    expect(single(['Module m.', 'Rule r produce List of Int:', '  Return append([1], "x").'])).toMatchObject({ code: 'PL2006', text: '"x"' });
  });

  it('PL2006 a Match subject that is neither an enum, Int nor Text', () => {
    expect(single(['Module m.', 'Rule r given f as Float, produce Int:', '  Match f:', '    When 1:', '      Return 1.', '  Return 0.']).code).toBe('PL2006');
  });

  it('Int widens to Float, also inside lists, never the reverse', () => {
    expect(errorCodes(['Module m.', 'Rule r produce List of Float:', '  Return append([1, 2], 3).'])).toEqual([]);
    expect(errorCodes(['Module m.', 'Rule r given xs as List of Float, produce List of Int:', '  Return xs.'])).toEqual(['PL2006']);
  });

  it('PL2007 operators on wrong operand types', () => {
    expect(single(['Module m.', 'Rule r produce Text:', '  Return 1 + "a".'])).toMatchObject({ code: 'PL2007', message: 'cannot add `Int` and `Text`' });
    expect(single(['Module m.', 'Rule r produce Bool:', '  Return "a" < "b".']).code).toBe('PL2007');
    expect(single(['Module m.', 'Rule r given n as Int, produce Bool:', '  Return n is "1".'])).toMatchObject({ code: 'PL2007', message: 'cannot compare `Int` with `Text`' });
    expect(single(['Module m.', 'Rule r given t as Text, produce Text:', '  Return -t.']).code).toBe('PL2007');
    expect(single(['Module m.', 'Rule r given n as Int, produce Bool:', '  Return n and true.']).code).toBe('PL2007');
    expect(single(['Module m.', 'Rule r given n as Int, produce Bool:', '  Return n contains 1.']).code).toBe('PL2007');
    expect(single(['Module m.', 'Rule r given n as Int, produce Bool:', '  Return n is one of 3.']).code).toBe('PL2007');
    expect(single(['Module m.', 'Rule r given t as Text, produce Bool:', '  Return t is between 1 and 2.']).code).toBe('PL2007');
  });

  it('PL2008 a condition that is not a Bool', () => {
    expect(single(['Module m.', 'Rule r given n as Int, produce Int:', '  If n:', '    Return 1.', '  Return 0.'])).toMatchObject({ code: 'PL2008', text: 'n' });
  });

  it('PL2010 a rebinding that changes the type', () => {
    expect(single(['Module m.', 'Rule r produce Int:', '  Let x be 1.', '  Let x be 2.5.', '  Return x.'])).toMatchObject({ code: 'PL2010', text: 'Let x be 2.5.' });
    expect(errorCodes(['Module m.', 'Rule r produce Float:', '  Let x be 1.5.', '  Let x be 2.', '  Return x.'])).toEqual([]);
  });

  it('PL2012 unknown rule or function, with a did-you-mean hint', () => {
    expect(single(['Module m.', 'Rule r given xs as List of Int, produce Int:', '  Return lenght(xs).'])).toMatchObject({ code: 'PL2012', message: 'unknown rule or function `lenght`; did you mean `length`?' });
  });

  it('PL2013 wrong number of arguments', () => {
    expect(single(['Module m.', 'Rule r produce Int:', '  Return abs(1, 2).'])).toMatchObject({ code: 'PL2013', message: '`abs` takes 1 argument, got 2' });
    expect(single(['Module m.', 'Rule a given x as Int, y as Int, produce Int:', '  Return x.', 'Rule r produce Int:', '  Return a(1).'])).toMatchObject({ code: 'PL2013', message: 'rule `a` takes 2 arguments, got 1' });
    expect(single(['Module m.', 'Rule r produce Int:', '  Return min().'])).toMatchObject({ code: 'PL2013', message: '`min` takes at least 1 argument, got 0' });
  });

  it('PL2014 / PL2015 record construction completeness', () => {
    expect(single(['Module m.', 'Define P has x as Int, y as Int.', 'Rule r produce P:', '  Return P with x set to 1.'])).toMatchObject({ code: 'PL2014', message: '`P` is missing field `y`' });
    expect(single(['Module m.', 'Define P has x as Int.', 'Rule r produce P:', '  Return P with x set to 1, z set to 3.'])).toMatchObject({ code: 'PL2015', text: 'z set to 3' });
    expect(single(['Module m.', 'Define P has x as Int.', 'Rule r produce P:', '  Return P with x set to 1, x set to 3.'])).toMatchObject({ code: 'PL2015', message: 'field `x` is set twice' });
  });

  it('PL2016 unknown field, and fields of a non-record', () => {
    expect(single(['Module m.', 'Define P has name as Text.', 'Rule r given p as P, produce Text:', '  Return p.nme.'])).toMatchObject({ code: 'PL2016', message: '`P` has no field `nme`; did you mean `name`?' });
    expect(single(['Module m.', 'Rule r given n as Int, produce Int:', '  Return n.x.']).code).toBe('PL2016');
  });

  it('PL2019 For each over a non-list', () => {
    expect(single(['Module m.', 'Rule r produce Int:', '  For each c in "abc":', '    Return 1.', '  Return 0.'])).toMatchObject({ code: 'PL2019', text: '"abc"' });
  });
});

describe('check: empty lists', () => {
  it('are typed by a later use of their variable', () => {
    expect(
      errorCodes([
        'Module m.',
        'Rule r given n as Int, produce List of Text:',
        '  Let reasons be [].',
        '  If n > 1:',
        '    Let reasons be append(reasons, "big").',
        '  Return reasons.',
      ]),
    ).toEqual([]);
  });

  it('are typed by the other side of a comparison, a parameter or a field', () => {
    expect(errorCodes(['Module m.', 'Rule r given xs as List of Int, produce Bool:', '  Return xs is [].'])).toEqual([]);
    expect(errorCodes(['Module m.', 'Define P has xs as List of Text.', 'Rule r produce P:', '  Return P with xs set to [].'])).toEqual([]);
    expect(errorCodes(['Module m.', 'Rule r produce Text:', '  Return join([], ", ").'])).toEqual([]);
  });

  it('PL2020 when nothing decides the element type', () => {
    expect(single(['Module m.', 'Rule r produce Int:', '  Let xs be [].', '  Return 1.'])).toMatchObject({ code: 'PL2020', text: '[]' });
    expect(single(['Module m.', 'Rule r produce Int:', '  Return sum([]).'])).toMatchObject({ code: 'PL2020', text: '[]' });
    expect(single(['Module m.', 'Rule r produce Int:', '  For each x in []:', '    Return 1.', '  Return 0.'])).toMatchObject({ code: 'PL2020', text: '[]' });
  });
});

describe('check: control flow', () => {
  it('PL2009 not every path returns', () => {
    expect(single(['Module m.', 'Rule r given n as Int, produce Int:', '  If n > 0:', '    Return 1.'])).toMatchObject({ code: 'PL2009', message: 'not every path of rule `r` returns a value' });
    expect(single(['Module m.', 'Rule r given xs as List of Int, produce Int:', '  For each x in xs:', '    Return x.']).code).toBe('PL2009');
  });

  it('an If with Otherwise and a Match naming every variant are complete', () => {
    expect(errorCodes(['Module m.', 'Rule r given n as Int, produce Int:', '  If n > 0:', '    Return 1.', '  Otherwise:', '    Fail with "no".'])).toEqual([]);
    expect(errorCodes(['Module m.', 'Define C as one of R, G.', 'Rule r given c as C, produce Int:', '  Match c:', '    When R:', '      Return 1.', '    When C.G:', '      Return 2.'])).toEqual([]);
    expect(errorCodes(['Module m.', 'Define C as one of R, G.', 'Rule r given c as C, produce Int:', '  Match c:', '    When R:', '      Return 1.'])).toEqual(['PL2009']);
  });

  it('PL2011 recursion, direct and through other rules', () => {
    const d = single(['Module m.', 'Rule a given n as Int, produce Int:', '  Return b(n).', 'Rule b given n as Int, produce Int:', '  Return a(n).']);
    expect(d).toMatchObject({ code: 'PL2011', text: 'a(n)', message: 'rule calls form a cycle: `a` → `b` → `a`; recursion is not allowed' });
    expect(single(['Module m.', 'Rule f given n as Int, produce Int:', '  Return f(n).']).code).toBe('PL2011');
  });

  it('PL2017 / PL2018 Match patterns', () => {
    expect(single(['Module m.', 'Define C as one of R, G.', 'Rule r given c as C, produce Int:', '  Match c:', '    When R, C.R:', '      Return 1.', '  Return 0.'])).toMatchObject({ code: 'PL2017', text: 'C.R' });
    expect(single(['Module m.', 'Rule r given n as Int, produce Int:', '  Match n:', '    When 1, 2, 1:', '      Return 1.', '  Return 0.']).code).toBe('PL2017');
    expect(single(['Module m.', 'Define C as one of R, G.', 'Define S as one of X.', 'Rule r given c as C, produce Int:', '  Match c:', '    When X:', '      Return 1.', '  Return 0.'])).toMatchObject({ code: 'PL2018', message: '`X` is a variant of `S`, but the value matched is a `C`' });
    expect(single(['Module m.', 'Rule r given t as Text, produce Int:', '  Match t:', '    When 1:', '      Return 1.', '  Return 0.'])).toMatchObject({ code: 'PL2018', text: '1' });
    expect(single(['Module m.', 'Define C as one of Red, G.', 'Rule r given c as C, produce Int:', '  Match c:', '    When Rde:', '      Return 1.', '  Return 0.']).message).toContain('did you mean `Red`');
  });

  it('PL2021 an unreachable statement is a warning that keeps the module', () => {
    const { module } = parsed(['Module m.', 'Rule r produce Int:', '  Return 1.', '  Return 2.']);
    const result = check(module);
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([['PL2021', 'warning']]);
    expect(result.checked).not.toBeNull();
  });

  it('PL2023 a loop variable reusing a bound name', () => {
    expect(single(['Module m.', 'Rule r given xs as List of Int, produce Int:', '  Let x be 0.', '  For each x in xs:', '    Let y be x.', '  Return x.']).code).toBe('PL2023');
  });

  it('the loop variable does not exist after its loop', () => {
    expect(single(['Module m.', 'Rule r given xs as List of Int, produce Int:', '  For each x in xs:', '    Let y be x.', '  Return x.'])).toMatchObject({ code: 'PL2001', text: 'x' });
  });

  it('PL2024 a variable bound on some paths only', () => {
    expect(single(['Module m.', 'Rule r given n as Int, produce Int:', '  If n > 0:', '    Let y be 1.', '  Return y.'])).toMatchObject({ code: 'PL2024', text: 'y' });
    expect(single(['Module m.', 'Rule r given xs as List of Int, produce Int:', '  For each x in xs:', '    Let last be x.', '  Return last.'])).toMatchObject({ code: 'PL2024', text: 'last' });
    expect(errorCodes(['Module m.', 'Rule r given n as Int, produce Int:', '  If n > 0:', '    Let y be 1.', '  Otherwise:', '    Let y be 2.', '  Return y.'])).toEqual([]);
    expect(errorCodes(['Module m.', 'Rule r given n as Int, produce Int:', '  If n > 0:', '    Let y be 1.', '  Otherwise:', '    Fail with "no".', '  Return y.'])).toEqual([]);
  });
});

describe('check: diagnostics', () => {
  it('come in source order, with lowercase messages that never name internal types', () => {
    const all = problems(['Module m.', 'Rule r given n as Int, produce Int:', '  Let a be nn.', '  Let b be "x" - 1.', '  Return zz.']);
    expect(all.map((d) => d.code)).toEqual(['PL2001', 'PL2007', 'PL2001']);
    for (const d of all) {
      expect(d.message[0]).toBe(d.message[0]!.toLowerCase());
      expect(d.message).not.toMatch(/Hole|Error|Record\b|Primitive|undefined/);
    }
  });

  it('report one error for one mistake (no cascade)', () => {
    expect(errorCodes(['Module m.', 'Rule r produce Int:', '  Let a be nope.', '  Let b be a + 1.', '  Return b * a.'])).toEqual(['PL2001']);
  });

  it('describe the whole module identically when the tree is checked twice', () => {
    const { module } = parsed(['Module m.', 'Rule r produce Int:', '  Return x.']);
    expect(stripPositions(check(module).diagnostics)).toEqual(stripPositions(check(module).diagnostics));
  });
});
