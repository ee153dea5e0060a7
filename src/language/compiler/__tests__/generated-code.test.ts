/**
 * Hot entry points run as generated functions (code-generator.ts) with freshly copied input and
 * output conversions (closure-template.ts). Both must behave exactly like the closure tree, and
 * the generated source must never contain policy text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompiledProgram, EvaluationResult } from '../../api-types.js';
import { check } from '../../checker/index.js';
import { evaluate, resolveLocale } from '../../index.js';
import { parse } from '../../parser/index.js';
import { freshTemplates } from '../../runtime/closure-template.js';
import { assertGeneratedSource, generateRules } from '../code-generator.js';
import { compileProgram } from '../compile-program.js';

interface Case {
  name: string;
  locale: string;
  source: string | string[];
  function?: string;
  context?: unknown;
  options?: { stepBudget?: number };
}

const casesDir = join(import.meta.dirname, '../../../../test/conformance/cases');

function loadCases(): Case[] {
  return readdirSync(casesDir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => (JSON.parse(readFileSync(join(casesDir, f), 'utf8')) as { cases: Case[] }).cases)
    .filter((c) => c.function !== undefined);
}

function build(c: Case, tierUpAfter: number): CompiledProgram | null {
  const locale = resolveLocale(c.locale);
  if (locale === null) return null;
  const source = Array.isArray(c.source) ? c.source.join('\n') + '\n' : c.source;
  const parsed = parse(source, locale);
  if (parsed.module === null || parsed.diagnostics.some((d) => d.severity === 'error')) return null;
  const checked = check(parsed.module).checked;
  if (checked === null) return null;
  return compileProgram(checked, { source, locale, tierUpAfter, ...(c.options?.stepBudget ? { stepBudget: c.options.stepBudget } : {}) });
}

function outcome(program: CompiledProgram, c: Case): EvaluationResult {
  return evaluate(program, c.function!, (c.context ?? {}) as never);
}

describe('the hot tier', () => {
  const cases = loadCases();

  it('copies conversion templates as new functions that behave like the template', () => {
    const template = (a: number, b: () => number) => () => a * b();
    const copy = freshTemplates(template);
    expect(copy).not.toBe(template);
    expect(copy(6, () => 7)()).toBe(42);
  });

  it('the corpus provides enough cases that evaluate', () => {
    expect(cases.length).toBeGreaterThan(100);
  });

  it('gives the same outcome as the closure tree for every corpus case', () => {
    let compared = 0;
    for (const c of cases) {
      const shared = build(c, Number.MAX_SAFE_INTEGER);
      const fresh = build(c, 1);
      if (shared === null || fresh === null) continue;
      const expected = outcome(shared, c);
      // Twice: the first evaluation tiers up, the second runs on the generated code.
      expect(outcome(fresh, c), c.name).toEqual(expected);
      expect(outcome(fresh, c), c.name).toEqual(expected);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('takes exactly the steps of the closure tree: same outcome and span for every budget', () => {
    const programs: [string[], string, unknown][] = [
      [
        [
          'Module m.',
          'Rule helper given n as Int, produce Int:',
          '  Let a be n + 1.',
          '  Let b be a * 2.',
          '  Return b.',
          'Rule r given xs as List of Int, d as Int, produce Int:',
          '  Let total be 0.',
          '  Let scale be 10.',
          '  For each x in xs:',
          '    Let y be x * scale.',
          '    Let total be total + helper(y).',
          '    Let z be total % 7.',
          '    If z is 3:',
          '      Let total be total + 100 % d * 0 + 1.',
          '  Let w be total - 1.',
          '  Let q be w / d.',
          '  Return round(q).',
        ],
        'r',
        [[1, 2, 3, 4], 2],
      ],
      [['Module m.', 'Rule r given d as Int, produce Int:', '  Let a be 1.', '  Let b be 2.', '  Let c be a % d.', '  Let e be 3.', '  Return a + b + c + e.'], 'r', [0]],
    ];
    for (const [lines, fn, context] of programs) {
      const source = lines.join('\n') + '\n';
      for (let budget = 1; budget <= 120; budget++) {
        const c: Case = { name: `${fn} with ${budget} steps`, locale: 'en-US', source, function: fn, context, options: { stepBudget: budget } };
        const expected = outcome(build(c, Number.MAX_SAFE_INTEGER)!, c);
        const fresh = build(c, 1)!;
        expect(outcome(fresh, c), c.name).toEqual(expected);
        expect(outcome(fresh, c), c.name).toEqual(expected);
      }
    }
  });

  it('keeps tracing, and other entry points, on their own code', () => {
    const source = 'Module m.\nRule one produce Int:\n  Return 1.\nRule two produce Int:\n  Return one() + one().\n';
    const checked = check(parse(source, 'en-US').module!).checked!;
    const program = compileProgram(checked, { source, locale: 'en-US', tierUpAfter: 2 });
    for (let i = 0; i < 4; i++) {
      expect(evaluate(program, 'two', [])).toEqual({ ok: true, value: 2 });
      expect(evaluate(program, 'one', [])).toEqual({ ok: true, value: 1 });
      expect(evaluate(program, 'two', [], { trace: true })).toMatchObject({ ok: true, value: 2, trace: [{ kind: 'call' }, { kind: 'return' }, { kind: 'call' }, { kind: 'return' }, { kind: 'return' }] });
    }
  });
});

describe('the hot entry function', () => {
  const source = [
    'Module m.',
    'Define Point has x as Int, y as Float.',
    'Define Shape has kind as Kind, corner as Point, points as List of Point, tags as List of Text.',
    'Define Kind as one of Square, Circle.',
    'Define Odd has `constructor` as Int, `toString` as Text.',
    'Define Summary has shape as Shape, kinds as List of Kind, area as Float.',
    'Rule widen given p as Point, produce Point:',
    '  Return Point with x set to p.x + 1, y set to p.y.',
    'Rule summary given shape as Shape, odd as Odd, scale as Int, produce Summary:',
    '  Let moved be widen(shape.corner).',
    '  Let copy be Shape with kind set to shape.kind, corner set to moved, points set to append(shape.points, moved), tags set to shape.tags.',
    '  Return Summary with shape set to copy, kinds set to [shape.kind, Circle], area set to moved.y * scale + odd.`constructor`.',
    'Rule whole given shape as Shape, produce Shape:',
    '  If shape.kind is Square:',
    '    Return shape.',
    '  Return Shape with kind set to Square, corner set to shape.corner, points set to shape.points, tags set to shape.tags.',
    'Rule kind given k as Kind, produce Kind:',
    '  Return k.',
    'Rule nothing produce Int:',
    '  Return 7.',
  ].join('\n') + '\n';
  const shape = { kind: 'Circle', corner: { x: 1, y: 2.5 }, points: [{ x: 3, y: 4 }], tags: ['a'] };
  const odd = { constructor: 2, toString: 'z' };
  const inherited = Object.assign(Object.create({ extra: 1 }) as object, { x: 1, y: 2 });
  const contexts: [string, unknown][] = [
    ['summary', { shape, odd, scale: 3 }],
    ['summary', [shape, odd, 3]],
    ['summary', { shape, odd: { toString: 'z' }, scale: 3 }],
    ['summary', { shape, odd: Object.assign(Object.create({ constructor: 2 }) as object, { toString: 'z' }), scale: 3 }],
    ['summary', { shape: { ...shape, corner: inherited }, odd, scale: 3 }],
    ['summary', { shape: { ...shape, kind: 'Triangle' }, odd, scale: 3 }],
    ['summary', { shape: { ...shape, points: [{ x: 1.5, y: 0 }] }, odd, scale: 3 }],
    ['summary', { shape: { ...shape, tags: 'a' }, odd, scale: 3 }],
    ['summary', { shape, odd, scale: 3, more: 1 }],
    ['summary', { shape: { ...shape, extra: 1 }, odd, scale: 3 }],
    ['summary', { shape: Object.assign(Object.create({ extra: 1 }) as object, shape), odd, scale: 3 }],
    ['summary', [shape, odd]],
    ['summary', null],
    ['whole', { shape }],
    ['whole', { shape: { ...shape, kind: 'Square' } }],
    ['whole', [{ ...shape, extra: 1 }]],
    ['kind', { k: 'Square' }],
    ['kind', { k: 1 }],
    ['nothing', {}],
    ['nothing', []],
    ['nothing', { x: 1 }],
  ];

  function programWith(tierUpAfter: number): CompiledProgram {
    const checked = check(parse(source, 'en-US').module!).checked!;
    return compileProgram(checked, { source, locale: 'en-US', tierUpAfter });
  }

  it('converts contexts and results, valid or not, like the closure tree', () => {
    const closures = programWith(Number.MAX_SAFE_INTEGER);
    const hot = programWith(1);
    for (const [fn, context] of contexts) {
      const expected = evaluate(closures, fn, context as never);
      expect(evaluate(hot, fn, context as never), `${fn} ${JSON.stringify(context)}`).toEqual(expected);
      expect(evaluate(hot, fn, context as never), `${fn} ${JSON.stringify(context)}`).toEqual(expected);
    }
    expect(evaluate(hot, 'summary', { shape, odd, scale: 3 })).toEqual({
      ok: true,
      value: {
        shape: { kind: 'Circle', corner: { x: 2, y: 2.5 }, points: [{ x: 3, y: 4 }, { x: 2, y: 2.5 }], tags: ['a'] },
        kinds: ['Circle', 'Circle'],
        area: 9.5,
      },
    });
  });

  it('reads the input in the same order as the closure tree, through getters too', () => {
    const logged = (log: string[], good: boolean) => {
      const point = (name: string, x: unknown) => ({
        get x() {
          log.push(`${name}.x`);
          return x;
        },
        get y() {
          log.push(`${name}.y`);
          return 0.5;
        },
      });
      return {
        get shape() {
          log.push('shape');
          return { kind: 'Square', corner: point('corner', 1), points: [point('p0', 2), point('p1', good ? 3 : 'no')], tags: [] };
        },
      };
    };
    for (const good of [true, false]) {
      const closureLog: string[] = [];
      const hotLog: string[] = [];
      const hot = programWith(1);
      const expected = evaluate(programWith(Number.MAX_SAFE_INTEGER), 'whole', logged(closureLog, good));
      evaluate(hot, 'whole', logged([], good));
      expect(evaluate(hot, 'whole', logged(hotLog, good))).toEqual(expected);
      expect(hotLog).toEqual(closureLog);
      expect(closureLog.length).toBeGreaterThan(3);
    }
  });
});

describe('generated source', () => {
  const hostile = [
    'Module m.',
    'Define Rec has `constructor` as Int, payload as Text.',
    'Define Kind as one of `process`, `require`.',
    'Rule `eval` given globalThis as Rec, k as Kind, produce Text:',
    '  If k is `process`:',
    '    Return "\\"); process.exit(1); //" + globalThis.payload.',
    '  Match "`${x}`":',
    '    When "\\u{2028}":',
    '      Return "x".',
    '  Return text(k) + "\' + require(\'fs\') + \'".',
  ].join('\n');

  it('contains no policy text, even hostile names and strings', () => {
    const parsed = parse(hostile + '\n', 'en-US');
    expect(parsed.diagnostics).toEqual([]);
    const checked = check(parsed.module!).checked!;
    for (const entry of [null, 'eval']) {
      const generated = generateRules(checked, checked.callOrder, entry);
      const code = generated.source.slice("'use strict';".length);
      for (const text of ['process', 'require', 'exit', 'globalThis', 'eval', 'Rec', 'constructor', 'payload', '"', '`', "'"]) {
        expect(code).not.toContain(text);
      }
      expect(generated.constants).toContain('"); process.exit(1); //');
    }
  });

  it('behaves like the closure tree for such a module', () => {
    const source = hostile + '\n';
    for (const kind of ['process', 'require']) {
      const c: Case = { name: 'hostile', locale: 'en-US', source, function: 'eval', context: [{ constructor: 1, payload: 'A' }, kind] };
      const expected = outcome(build(c, Number.MAX_SAFE_INTEGER)!, c);
      expect(expected.ok).toBe(true);
      expect(outcome(build(c, 1)!, c)).toEqual(expected);
    }
  });

  it('is rejected when it strays from the generator vocabulary', () => {
    const ok = "'use strict';\nfunction r0(v0) {\nreturn addI(v0, 1, s[0]);\n}\nreturn [(l0) => r0(l0[0])];\n";
    expect(() => assertGeneratedSource(ok)).not.toThrow();
    expect(() => assertGeneratedSource(ok.replace('addI', 'process.exit'))).toThrow(/process/);
    expect(() => assertGeneratedSource(ok.replace('s[0]', '"x"'))).toThrow(/character/);
    expect(() => assertGeneratedSource(ok.replace("'use strict';\n", ''))).toThrow(/strict/);
  });
});
