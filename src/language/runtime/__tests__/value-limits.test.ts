import { describe, expect, it } from 'vitest';
import type { CompiledProgram, EvaluateOptions } from '../../api-types.js';
import { check } from '../../checker/index.js';
import { compileProgram } from '../../compiler/index.js';
import { evaluate } from '../../index.js';
import { parse } from '../../parser/index.js';
import { numberSize, textSize } from '../json-size.js';
import { program } from './test-support.js';

/** Both tiers: tier-up after one evaluation, so evaluations 2… run generated code. */
function tiers(lines: string[]): CompiledProgram[] {
  const source = lines.join('\n') + '\n';
  const checked = check(parse(source, 'en-US').module!).checked!;
  return [program(lines).program, compileProgram(checked, { source, locale: 'en-US', tierUpAfter: 1 })];
}

function codes(compiled: CompiledProgram, fn: string, context: unknown, options?: EvaluateOptions): string[] {
  const result = evaluate(compiled, fn, context, options);
  return result.ok ? [] : result.diagnostics.map((d) => d.code);
}

const ACCUMULATE = [
  'Module m.',
  'Rule grow given block as List of Int, copies as Int, produce List of List of Int:',
  '  Let acc be [block].',
  '  Let i be 1.',
  '  For each x in block:',
  '    If i is less than copies:',
  '      Let acc be append(acc, block).',
  '      Let i be i + 1.',
  '  Return acc.',
];

describe('JSON sizes', () => {
  it('match JSON.stringify for numbers and texts', () => {
    for (const n of [0, -0, 7, -7, 10, 99, 100, -1000, 2 ** 53 - 1, -(2 ** 53 - 1), 1.5, -0.25, 1e21, 1.2345e-300]) {
      expect(numberSize(n), String(n)).toBe(JSON.stringify(n).length);
    }
    for (const t of ['', 'abc', 'a"b\\c', '\n\t\u0001', 'é', '汉字', '😀', '\ud800x', 'x\udc00']) {
      expect(textSize(t, Infinity), t).toBe(Buffer.byteLength(JSON.stringify(t)));
    }
  });
});

describe('maxResultBytes', () => {
  const block = Array.from({ length: 5000 }, (_, i) => i);

  it('stops a result far larger than the default with PL4006 in both tiers', () => {
    for (const compiled of tiers(ACCUMULATE)) {
      for (let run = 0; run < 3; run++) {
        const result = evaluate(compiled, 'grow', { block, copies: 4000 });
        expect(result).toEqual({
          ok: false,
          diagnostics: [
            {
              code: 'PL4006',
              severity: 'error',
              message: 'result is larger than 1048576 bytes (maxResultBytes)',
              span: null,
              help: 'return a smaller result, e.g. a summary instead of a whole list',
            },
          ],
        });
      }
    }
  });

  it('counts the exact JSON size and takes a limit per evaluation', () => {
    const small = [1, 22, 333];
    const [closures] = tiers(ACCUMULATE);
    const exact = JSON.stringify([small, small]).length;
    expect(evaluate(closures!, 'grow', { block: small, copies: 2 }, { maxResultBytes: exact })).toEqual({ ok: true, value: [small, small] });
    expect(codes(closures!, 'grow', { block: small, copies: 2 }, { maxResultBytes: exact - 1 })).toEqual(['PL4006']);
    expect(() => evaluate(closures!, 'grow', { block: small, copies: 2 }, { maxResultBytes: 0 })).toThrow(RangeError);
  });

  it('leaves results that always fit alone', () => {
    const lines = ['Module m.', 'Define P has a as Int, b as Bool.', 'Rule r given x as Int, produce P:', '  Return P with a set to x, b set to true.'];
    for (const compiled of tiers(lines)) {
      expect(evaluate(compiled, 'r', { x: 5 }, { maxResultBytes: 1000 })).toEqual({ ok: true, value: { a: 5, b: true } });
      expect(codes(compiled, 'r', { x: 5 }, { maxResultBytes: 10 })).toEqual(['PL4006']);
    }
  });
});

describe('maxResultBytes of a record with Text fields', () => {
  const LONG = [
    'Module m.',
    'Define Note has ok as Bool, body as Text.',
    'Rule note given doublings as List of Int, produce Note:',
    '  Let t be "x".',
    '  For each i in doublings:',
    '    Let t be t + t.',
    '  Return Note with ok set to true, body set to t.',
  ];
  const doublings = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('measures long Texts exactly and stops them with PL4006 in both tiers', () => {
    for (const compiled of tiers(LONG)) {
      for (let run = 0; run < 2; run++) {
        // 2^20 characters and their quotes are just over 1 MiB; 2^19 fit easily.
        expect(codes(compiled, 'note', { doublings: doublings(20) })).toEqual(['PL4006']);
        const fits = evaluate(compiled, 'note', { doublings: doublings(19) });
        expect(fits.ok && (fits.value as { body: string }).body.length).toBe(2 ** 19);
      }
    }
  });
});

describe('result depth', () => {
  const NEST = [
    'Module m.',
    'Define Node has value as Int, kids as List of Node.',
    'Rule nest given levels as List of Int, produce Node:',
    '  Let n be Node with value set to 0, kids set to [].',
    '  For each i in levels:',
    '    Let n be Node with value set to i, kids set to [n].',
    '  Return n.',
  ];

  it('fails fast with PL4002 past 64 levels, in both tiers', () => {
    const levels = Array.from({ length: 2000 }, (_, i) => i);
    for (const compiled of tiers(NEST)) {
      for (let run = 0; run < 3; run++) {
        const result = evaluate(compiled, 'nest', { levels });
        expect(result).toEqual({
          ok: false,
          diagnostics: [{ code: 'PL4002', severity: 'error', message: 'the result is nested deeper than 64 levels', span: null }],
        });
      }
    }
  });

  it('keeps results up to 64 levels', () => {
    // A node is a record and its list of kids: two levels per node, the innermost has no kids.
    const [closures] = tiers(NEST);
    expect(evaluate(closures!, 'nest', { levels: Array.from({ length: 31 }, (_, i) => i) }).ok).toBe(true);
    expect(codes(closures!, 'nest', { levels: Array.from({ length: 32 }, (_, i) => i) })).toEqual(['PL4002']);
  });
});

describe('maxTraceBytes', () => {
  const LOOP = [
    'Module m.',
    'Rule keep given acc as List of Int, produce List of Int:',
    '  Return acc.',
    'Rule loop given block as List of Int, produce Int:',
    '  Let total be 0.',
    '  For each x in block:',
    '    Let kept be keep(block).',
    '    Let total be total + 1.',
    '  Return total.',
  ];

  it('stops a trace past the limit with PL4007 and keeps the entries recorded so far', () => {
    const block = Array.from({ length: 2000 }, (_, i) => i);
    const compiled = program(LOOP).program;
    const result = evaluate(compiled, 'loop', { block }, { trace: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.diagnostics).toEqual([
      {
        code: 'PL4007',
        severity: 'error',
        message: 'decision trace is larger than 1048576 bytes (maxTraceBytes)',
        help: 'evaluate without the trace, or with a smaller context',
        span: null,
      },
    ]);
    expect(JSON.stringify(result.trace).length).toBeLessThanOrEqual(1024 * 1024);
    expect(result.trace!.length).toBeGreaterThan(0);
  });

  it('takes a limit per evaluation and leaves small traces alone', () => {
    const compiled = program(LOOP).program;
    expect(evaluate(compiled, 'loop', { block: [1, 2] }, { trace: true })).toMatchObject({ ok: true, value: 2 });
    expect(codes(compiled, 'loop', { block: [1, 2] }, { trace: true, maxTraceBytes: 200 })).toEqual(['PL4007']);
    expect(() => evaluate(compiled, 'loop', { block: [1] }, { trace: true, maxTraceBytes: 1.5 })).toThrow(RangeError);
  });

  it('reports a value nested too deeply for the trace as PL4002', () => {
    const lines = [
      'Module m.',
      'Define Node has kids as List of Node.',
      'Rule wrap given n as Node, produce Node:',
      '  Return Node with kids set to [n].',
      'Rule nest given levels as List of Int, produce Int:',
      '  Let n be Node with kids set to [].',
      '  For each i in levels:',
      '    Let n be wrap(n).',
      '  Return 1.',
    ];
    const compiled = program(lines).program;
    const result = evaluate(compiled, 'nest', { levels: Array.from({ length: 100 }, (_, i) => i) }, { trace: true });
    expect(result).toMatchObject({ ok: false, diagnostics: [{ code: 'PL4002', message: 'a value in the decision trace is nested deeper than 64 levels' }] });
  });
});

describe('deep input', () => {
  it('a 6,000-level nested array is a clean PL5 diagnostic in both tiers', () => {
    let deep: unknown = [];
    for (let i = 0; i < 6000; i++) deep = [deep];
    const lines = ['Module m.', 'Rule r given xs as List of Int, produce Int:', '  Return count(xs).'];
    for (const compiled of tiers(lines)) {
      for (let run = 0; run < 2; run++) expect(codes(compiled, 'r', { xs: deep })).toEqual(['PL5004']);
    }
  });

  it('a 6,000-level tree of a recursive record is PL5008 in both tiers', () => {
    const lines = ['Module m.', 'Define Tree has kids as List of Tree.', 'Rule r given t as Tree, produce Int:', '  Return count(t.kids).'];
    let deep: unknown = { kids: [] };
    for (let i = 0; i < 6000; i++) deep = { kids: [deep] };
    for (const compiled of tiers(lines)) {
      for (let run = 0; run < 2; run++) {
        const result = evaluate(compiled, 'r', { t: deep });
        expect(result).toMatchObject({ ok: false, diagnostics: [{ code: 'PL5008' }] });
        expect(result.ok || result.diagnostics[0]!.message).toMatch(/is nested deeper than 64 levels of lists and records$/);
      }
      expect(evaluate(compiled, 'r', { t: { kids: [{ kids: [] }] } })).toEqual({ ok: true, value: 1 });
    }
  });
});
