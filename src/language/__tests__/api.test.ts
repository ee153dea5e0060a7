import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  check,
  compile,
  describeDiagnostic,
  detectLocale,
  DIAGNOSTIC_CODES,
  evaluate,
  parse,
  resolveLocale,
  stripPositions,
  SUPPORTED_LOCALES,
  type CompiledProgram,
} from '../index.js';

const loan = [
  'Module lending.demo.',
  'Define Applicant has age as Int, creditScore as Int, tier as Tier.',
  'Define Tier as one of Prime, Standard.',
  'Rule baseRate given score as Int, produce Int:',
  '  If score is at least 740:',
  '    Return 425.',
  '  Return 675.',
  'Rule evaluate given applicant as Applicant, amounts as List of Float, produce List of Float:',
  '  Let rate be baseRate(applicant.creditScore).',
  '  If applicant.tier is Prime:',
  '    Let rate be rate minus 50.',
  '  Let out be [].',
  '  For each amount in amounts:',
  '    Let out be append(out, round(amount * rate / 10000, 2)).',
  '  Return out.',
].join('\n');

function compiled(source: string, locale = 'en-US'): CompiledProgram {
  const result = compile(source, locale);
  if (!result.program) throw new Error(result.diagnostics.map(describeDiagnostic).join('\n'));
  return result.program;
}

describe('compile', () => {
  it('returns a program describing its module and functions', () => {
    const program = compiled(loan);
    expect(program.moduleName).toBe('lending.demo');
    expect(program.locale).toBe('en-US');
    expect(program.functions).toEqual([
      { name: 'baseRate', params: [{ name: 'score', type: 'Int' }], returnType: 'Int' },
      {
        name: 'evaluate',
        params: [
          { name: 'applicant', type: 'Applicant' },
          { name: 'amounts', type: 'List of Float' },
        ],
        returnType: 'List of Float',
      },
    ]);
    expect(evaluate(program, 'evaluate', { applicant: { age: 30, creditScore: 750, tier: 'Prime' }, amounts: [1000, 2500.5] })).toEqual({
      ok: true,
      value: [37.5, 93.77],
    });
  });

  it('keeps the program plain: JSON-serialisable without its executable part', () => {
    const program = compiled(loan);
    const json = JSON.parse(JSON.stringify(program)) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(['functions', 'locale', 'module', 'moduleName', 'workflows']);
  });

  it('PL6001 for an unsupported locale tag, listing the supported locales', () => {
    for (const tag of ['fr-FR', '', 'en-GB', 'zh-TW']) {
      const result = compile(loan, tag);
      expect(result.program).toBeNull();
      expect(result.diagnostics).toHaveLength(1);
      expect(result.diagnostics[0]).toMatchObject({ code: 'PL6001', span: null });
      for (const locale of SUPPORTED_LOCALES) expect(result.diagnostics[0]!.message).toContain(locale);
    }
    expect(describeDiagnostic(compile(loan, 'xx').diagnostics[0]!)).toMatch(/^PL6001 unsupported locale `xx`; supported locales are `en-US`/);
  });

  it('accepts every spelling of a supported locale tag', () => {
    for (const tag of ['en-US', 'en', 'EN_us', 'eN-Us']) expect(compile(loan, tag).program?.locale).toBe('en-US');
  });

  it('stops at syntax errors and at checker errors, keeping only the diagnostics', () => {
    expect(compile('Module m.\nRule r produce Int:\n  Return 1 +.\n', 'en-US')).toMatchObject({ program: null, diagnostics: [{ code: 'PL1006' }] });
    expect(compile('Module m.\nRule r produce Int:\n  Return x.\n', 'en-US')).toMatchObject({ program: null, diagnostics: [{ code: 'PL2001' }] });
  });

  it('keeps the program when there are only warnings', () => {
    const result = compile('Module m.\nRule r produce Int:\n  Return 1.\n  Return 2.\n', 'en-US');
    expect(result.program).not.toBeNull();
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([['PL2021', 'warning']]);
  });

  it('compiles every built-in domain policy', () => {
    const dir = join(import.meta.dirname, '../../../policies');
    const files = readdirSync(dir).filter((f) => f.endsWith('.policy'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const source = readFileSync(join(dir, file), 'utf8');
      const locale = detectLocale(source);
      expect(locale, file).not.toBeNull();
      const result = compile(source, locale!);
      expect(result.diagnostics.map(describeDiagnostic), file).toEqual([]);
      expect(result.program?.moduleName).toBe(file.replace(/\.policy$/, ''));
    }
  });
});

describe('evaluate', () => {
  it('PL6002 for an unknown function, with a did-you-mean hint', () => {
    const result = evaluate(compiled(loan), 'evaluat', {});
    expect(result).toEqual({
      ok: false,
      diagnostics: [
        {
          code: 'PL6002',
          severity: 'error',
          message: 'function `evaluat` not found in module `lending.demo`; did you mean `evaluate`?',
          span: null,
        },
      ],
    });
    if (result.ok) throw new Error('expected a failure');
    expect(describeDiagnostic(result.diagnostics[0]!)).toBe(
      'PL6002 function `evaluat` not found in module `lending.demo`; did you mean `evaluate`?',
    );
  });

  it('alternates between functions of one program', () => {
    const program = compiled(loan);
    for (let i = 0; i < 3; i++) {
      expect(evaluate(program, 'baseRate', [800])).toEqual({ ok: true, value: 425 });
      expect(evaluate(program, 'evaluate', [{ age: 1, creditScore: 1, tier: 'Standard' }, [100]])).toEqual({ ok: true, value: [6.75] });
    }
  });

  it('never throws for any JSON context', () => {
    const program = compiled(loan);
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ applicant: fc.jsonValue(), amounts: fc.jsonValue() })), (context) => {
        const result = evaluate(program, 'evaluate', context);
        if (!result.ok) {
          expect(result.diagnostics.length).toBeGreaterThan(0);
          for (const d of result.diagnostics) expect(d.code in DIAGNOSTIC_CODES).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('means the same in every locale', () => {
    const en = ['Module kredit.', 'Rule rate given score as Int, produce Int:', '  Let r be 600.', '  If score at least 700:', '    Let r be r minus 100.', '  Return r.'].join('\n');
    const de = ['Modul kredit.', 'Regel rate gegeben score als Ganzzahl, liefert Ganzzahl:', '  Sei r gleich 600.', '  Wenn score mindestens 700:', '    Sei r gleich r minus 100.', '  Liefere r.'].join('\n');
    const zh = ['模块 kredit。', '规则 rate 给定 score 为 整数，产出 整数：', '  令 r 为 600。', '  如果 score 至少 700：', '    令 r 为 r 减去 100。', '  返回 r。'].join('\n');
    const modules = [parse(en, 'en-US'), parse(de, 'de-DE'), parse(zh, 'zh-CN')].map((p) => stripPositions(p.module));
    expect(modules[1]).toEqual(modules[0]);
    expect(modules[2]).toEqual(modules[0]);
    for (const [source, tag] of [
      [en, 'en'],
      [de, 'de'],
      [zh, 'zh'],
    ] as const) {
      expect(evaluate(compiled(source, tag), 'rate', [720])).toEqual({ ok: true, value: 500 });
    }
  });
});

describe('public surface', () => {
  it('exposes the whole pipeline', () => {
    expect(resolveLocale('de_de')).toBe('de-DE');
    expect(detectLocale('Modul x.\n')).toBe('de-DE');
    const parsed = parse('Module m.\nRule r produce Int:\n  Return 1.\n', 'en-US');
    expect(check(parsed.module!).diagnostics).toEqual([]);
    expect(DIAGNOSTIC_CODES.PL2024).toContain('bound only on some paths');
  });
});
