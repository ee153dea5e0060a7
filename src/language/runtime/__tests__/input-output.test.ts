import { describe, expect, it } from 'vitest';
import { evaluate } from '../../index.js';
import { program, run, value } from './test-support.js';

const applicantModule = [
  'Module m.',
  'Define Applicant has age as Int, creditScore as Int, income as Float, tier as Tier, tags as List of Text.',
  'Define Tier as one of Prime, Standard, Subprime.',
  'Rule score given applicant as Applicant, amount as Int, produce Int:',
  '  Return applicant.creditScore + amount.',
];

const validApplicant = { age: 40, creditScore: 700, income: 5000.5, tier: 'Prime', tags: ['a'] };

function messages(context: unknown, lines = applicantModule, fn = 'score'): { code: string; message: string; span: unknown }[] {
  const result = run(lines, fn, context);
  if (result.ok) throw new Error(`expected input problems, got ${JSON.stringify(result.value)}`);
  return result.diagnostics.map(({ code, message, span }) => ({ code, message, span }));
}

describe('context input', () => {
  it('is an object keyed by parameter name or an array in parameter order', () => {
    expect(value(applicantModule, 'score', { applicant: validApplicant, amount: 5 })).toBe(705);
    expect(value(applicantModule, 'score', { amount: 5, applicant: validApplicant })).toBe(705);
    expect(value(applicantModule, 'score', [validApplicant, 5])).toBe(705);
  });

  it('PL5001 anything else, with no span', () => {
    for (const context of [null, 'n=1', 5, true, undefined]) {
      const [d, ...rest] = messages(context);
      expect(rest).toEqual([]);
      expect(d!.code).toBe('PL5001');
      expect(d!.span).toBeNull();
    }
    expect(messages('n=1')[0]!.message).toBe(
      'context must be a JSON object keyed by parameter name or an array in parameter order, got string `"n=1"`',
    );
  });

  it('PL5002 a missing parameter or record field, by path', () => {
    expect(messages({ applicant: validApplicant })).toEqual([{ code: 'PL5002', message: '`amount` is missing (expects Int)', span: null }]);
    const { creditScore: _, ...withoutScore } = validApplicant;
    expect(messages({ applicant: withoutScore, amount: 1 })).toEqual([
      { code: 'PL5002', message: '`applicant.creditScore` is missing (expects Int)', span: null },
    ]);
  });

  it('PL5003 an unexpected key, by path, with a did-you-mean hint', () => {
    expect(messages({ applicant: validApplicant, amount: 1, amout: 2 })).toEqual([
      { code: 'PL5003', message: '`amout` is not a parameter of `score`; did you mean `amount`?', span: null },
    ]);
    expect(messages({ applicant: { ...validApplicant, incom: 1 }, amount: 1 })).toEqual([
      { code: 'PL5003', message: '`applicant.incom` is not a field of `Applicant`; did you mean `income`?', span: null },
    ]);
  });

  it('PL5004 a wrong JSON type, naming path, expected type and what was given', () => {
    const cases: [unknown, string][] = [
      [{ ...validApplicant, creditScore: 'x' }, '`applicant.creditScore` expects Int, got string `"x"`'],
      [{ ...validApplicant, income: '1.5' }, '`applicant.income` expects Float, got string `"1.5"`'],
      [{ ...validApplicant, tags: ['a', 3] }, '`applicant.tags[1]` expects Text, got number `3`'],
      [{ ...validApplicant, tags: { 0: 'a' } }, '`applicant.tags` expects List of Text, got an object'],
      [{ ...validApplicant, age: null }, '`applicant.age` expects Int, got null'],
      [{ ...validApplicant, tier: 1 }, '`applicant.tier` expects Tier (one of `Prime`, `Standard`, `Subprime`), got number `1`'],
      [[1], '`applicant` expects Applicant, got an array'],
    ];
    for (const [applicant, message] of cases) {
      expect(messages({ applicant, amount: 1 })).toEqual([{ code: 'PL5004', message, span: null }]);
    }
    expect(messages({ applicant: validApplicant, amount: true })[0]!.message).toBe('`amount` expects Int, got boolean `true`');
  });

  it('PL5004 non-finite numbers are not Floats', () => {
    expect(messages({ applicant: { ...validApplicant, income: Number.NaN }, amount: 1 })[0]).toMatchObject({ code: 'PL5004' });
  });

  it('PL5005 a number that is not an integer in the safe range', () => {
    expect(messages({ applicant: validApplicant, amount: 2.5 })).toEqual([
      { code: 'PL5005', message: '`amount` expects Int, got number `2.5`, which is not an integer in the safe range ±(2^53−1)', span: null },
    ]);
    expect(messages({ applicant: validApplicant, amount: 2 ** 53 })[0]!.code).toBe('PL5005');
  });

  it('PL5006 an unknown enum variant, case-sensitive, listing the variants', () => {
    expect(messages({ applicant: { ...validApplicant, tier: 'prime' }, amount: 1 })).toEqual([
      {
        code: 'PL5006',
        message: '`applicant.tier` expects Tier (one of `Prime`, `Standard`, `Subprime`), got string `"prime"`; did you mean `Prime`?',
        span: null,
      },
    ]);
  });

  it('PL5007 a positional context of the wrong length', () => {
    expect(messages([validApplicant])).toEqual([
      { code: 'PL5007', message: '`score` takes 2 arguments (`applicant`, `amount`), got an array of 1', span: null },
    ]);
  });

  it('reports every problem at once', () => {
    const codes = messages({ applicant: { age: 'old', tier: 'Gold', tags: [], income: 1, extra: 1 }, amount: 1.5 }).map((d) => d.code);
    expect(codes).toEqual(['PL5004', 'PL5002', 'PL5006', 'PL5003', 'PL5005']);
  });

  it('treats names of Object.prototype as ordinary field names', () => {
    const lines = ['Module m.', 'Define P has constructor as Int, toString as Text.', 'Rule r given p as P, produce P:', '  Return p.'];
    expect(value(lines, 'r', [{ constructor: 1, toString: 'x' }])).toEqual({ constructor: 1, toString: 'x' });
    expect(messages([{ toString: 'x' }], lines, 'r')).toEqual([{ code: 'PL5002', message: '`p.constructor` is missing (expects Int)', span: null }]);
  });

  it('does not change the caller\'s context', () => {
    const context = { applicant: { ...validApplicant, tags: ['x', 'y'] }, amount: 3 };
    const before = JSON.stringify(context);
    run(applicantModule, 'score', context);
    expect(JSON.stringify(context)).toBe(before);
  });
});

describe('output', () => {
  it('records are objects in declaration order, enums their variant names, at any depth', () => {
    const lines = [
      'Module m.',
      'Define Order has lines as List of Line, status as Status, note as Text.',
      'Define Line has sku as Text, qty as Int, price as Float, gift as Bool.',
      'Define Status as one of Open, Closed.',
      'Rule echo given o as Order, produce Order:',
      '  Return o.',
      'Rule make produce Order:',
      '  Return Order with note set to "n", status set to Closed, lines set to [Line with gift set to true, price set to 2, qty set to 1, sku set to "a"].',
    ];
    const order = { note: '', status: 'Open', lines: [{ price: 1.5, gift: false, sku: 'a', qty: 2 }] };
    const echoed = value(lines, 'echo', [order]);
    expect(echoed).toEqual(order);
    expect(Object.keys(echoed as object)).toEqual(['lines', 'status', 'note']);
    expect(Object.keys((echoed as { lines: object[] }).lines[0]!)).toEqual(['sku', 'qty', 'price', 'gift']);
    const made = value(lines, 'make', []);
    expect(JSON.stringify(made)).toBe('{"lines":[{"sku":"a","qty":1,"price":2,"gift":true}],"status":"Closed","note":"n"}');
  });

  it('records with many fields keep their order too', () => {
    const fields = Array.from({ length: 9 }, (_, i) => `f${8 - i}`);
    const lines = ['Module m.', `Define Big has ${fields.map((f) => `${f} as Int`).join(', ')}.`, 'Rule r given b as Big, produce Big:', '  Return b.'];
    const input = Object.fromEntries(fields.map((f, i) => [f, i]).reverse());
    expect(Object.keys(value(lines, 'r', [input]) as object)).toEqual(fields);
  });

  it('a record field named __proto__ is an ordinary field', () => {
    const lines = ['Module m.', 'Define P has `__proto__` as Int.', 'Rule r produce P:', '  Return P with `__proto__` set to 3.'];
    const { program: compiled } = program(lines);
    const result = evaluate(compiled, 'r', []);
    expect(result.ok && JSON.stringify(result.value)).toBe('{"__proto__":3}');
  });
});

describe('very deep input', () => {
  it('is a PL5008 diagnostic, not a crash', () => {
    const lines = ['Module m.', 'Define Tree has value as Int, kids as List of Tree.', 'Rule r given t as Tree, produce Int:', '  Return t.value.'];
    let deep: unknown = { value: 1, kids: [] };
    for (let i = 0; i < 100_000; i++) deep = { value: i, kids: [deep] };
    const result = run(lines, 'r', [deep]);
    expect(result).toMatchObject({ ok: false, diagnostics: [{ code: 'PL5008', span: null }] });
    expect(value(lines, 'r', [{ value: 7, kids: [{ value: 1, kids: [] }] }])).toBe(7);
  });
});
