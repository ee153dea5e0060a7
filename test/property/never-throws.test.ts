import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/language/api-types.js';
import { DIAGNOSTIC_CODES, type Diagnostic } from '../../src/language/diagnostics/index.js';
import { check, compile, evaluate, format, parse } from '../../src/language/index.js';
import { chooserFrom, LOCALES } from './chooser.js';
import { generateModule } from './generate-module.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);
// endOnFailure: a failure is reported at once with its seed and path for replay; shrinking
// generated modules can take many minutes and would only delay the same report.

/** Words, punctuation and layout from every locale, so random sources get deep into the parser. */
const TOKENS = [
  'Module', 'Define', 'has', 'as', 'as one of', 'Rule', 'given', 'produce', 'Let', 'be', 'Return', 'If', 'Otherwise if',
  'Otherwise', 'Match', 'When', 'For each', 'in', 'Fail with', 'with', 'set to', 'and', 'or', 'not', 'is', 'is not',
  'less than', 'greater than', 'at least', 'at most', 'between', 'one of', 'contains', 'plus', 'minus', 'times',
  'divided by', 'modulo', 'true', 'false', 'Int', 'Float', 'Text', 'Bool', 'List of',
  '模块', '定义', '包含', '为', '为以下之一', '规则', '给定', '产出', '令', '返回', '如果', '否则如果', '否则', '匹配', '当',
  '对于每个', '在', '中', '报错', '其中', '设为', '并且', '或者', '非', '是', '不是', '小于', '大于', '至少', '至多', '介于', '与',
  '属于', '含有', '加上', '减去', '乘以', '除以', '取模', '真', '假', '整数', '小数', '文本', '布尔', '列表',
  'Modul', 'Definiere', 'mit', 'als', 'als eines von', 'Regel', 'gegeben', 'liefert', 'Sei', 'gleich', 'Liefere', 'Wenn',
  'Sonst wenn', 'Sonst', 'Prüfe', 'Pruefe', 'Bei', 'Für jedes', 'Scheitere mit', 'auf', 'und', 'oder', 'nicht', 'ist',
  'kleiner als', 'größer als', 'groesser als', 'mindestens', 'höchstens', 'zwischen', 'eines von', 'enthält', 'mal',
  'geteilt durch', 'wahr', 'falsch', 'Ganzzahl', 'Kommazahl', 'Wahrheitswert', 'Liste von',
  'x', 'y', 'score', 'Tier', 'Prime', 'a.b', 'round', 'max', 'length', '`when`', '`', '"txt"', '"', '「', '」', '“', '”',
  '0', '42', '1_000', '2.5', '9007199254740993', '.', ':', ',', '(', ')', '[', ']', '=', '==', '!=', '<', '>', '<=', '>=',
  '+', '-', '*', '/', '%', '。', '：', '，', '、', '（', '）', '【', '】', '#', '//', '\\', '\\u{', '\n', '\n  ', '\n    ', '\t',
  ' ', ' ', ' ', '\r\n', '\u0000', '\ud800',
];

const soup = fc
  .array(fc.constantFrom(...TOKENS), { maxLength: 80 })
  .map((tokens) => tokens.map((t, i) => (i > 0 && /\w$/u.test(tokens[i - 1]!) && /^\w/u.test(t) ? ` ${t}` : t)).join(''));

const garbage = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  soup,
  soup.map((s) => `Module fuzz.\n${s}`),
  soup.map((s) => `模块 模糊。\n${s}`),
  soup.map((s) => `Modul fuzz.\n${s}`),
);

const localeTag = fc.oneof(fc.constantFrom('en-US', 'zh-CN', 'de-DE', 'en', 'ZH', 'de_de'), fc.string({ maxLength: 8 }));

function expectWellFormed(diagnostics: readonly Diagnostic[], source: string): void {
  expect(Array.isArray(diagnostics)).toBe(true);
  for (const d of diagnostics) {
    expect(Object.keys(DIAGNOSTIC_CODES)).toContain(d.code);
    expect(['error', 'warning']).toContain(d.severity);
    expect(typeof d.message).toBe('string');
    expect(d.message.length).toBeGreaterThan(0);
    if (d.span !== null) {
      expect(d.span.start).toBeGreaterThanOrEqual(0);
      expect(d.span.end).toBeGreaterThanOrEqual(d.span.start);
      expect(d.span.end).toBeLessThanOrEqual(source.length);
      expect(d.span.line).toBeGreaterThanOrEqual(1);
      expect(d.span.column).toBeGreaterThanOrEqual(1);
    }
  }
}

/** Small random edits of a valid source: deletions, insertions of tokens, duplicated or swapped lines, indentation changes. */
function mutate(source: string, edits: { kind: number; at: number; length: number; token: string }[]): string {
  let s = source;
  for (const e of edits) {
    const at = s.length === 0 ? 0 : e.at % (s.length + 1);
    const lines = s.split('\n');
    const line = lines.length === 0 ? 0 : e.at % lines.length;
    switch (e.kind) {
      case 0:
        s = s.slice(0, at) + s.slice(at + e.length);
        break;
      case 1:
        s = s.slice(0, at) + e.token + s.slice(at);
        break;
      case 2:
        lines.splice(line, 0, lines[line] ?? '');
        s = lines.join('\n');
        break;
      case 3:
        lines.splice(line, 1);
        s = lines.join('\n');
        break;
      case 4:
        lines[line] = ' '.repeat(e.length % 5) + (lines[line] ?? '');
        s = lines.join('\n');
        break;
      default:
        lines[line] = (lines[line] ?? '').trimStart();
        s = lines.join('\n');
    }
  }
  return s;
}

const edit = fc.record({
  kind: fc.integer({ min: 0, max: 5 }),
  at: fc.nat(),
  length: fc.integer({ min: 1, max: 12 }),
  token: fc.constantFrom(...TOKENS),
});

// Generous: the work grows with PROPERTY_RUNS, and CI shares two cores with other suites.
describe('the API never throws on bad input; it reports diagnostics', { timeout: 600_000 }, () => {
  it('parse, check and compile accept any source and locale tag', () => {
    fc.assert(
      fc.property(garbage, localeTag, (source, tag) => {
        const compiled = compile(source, tag);
        expectWellFormed(compiled.diagnostics, source);
        if (compiled.program === null) expect(compiled.diagnostics.some((d) => d.severity === 'error')).toBe(true);
        for (const locale of LOCALES) {
          const parsed = parse(source, locale);
          expectWellFormed(parsed.diagnostics, source);
          if (parsed.module !== null) check(parsed.module);
        }
      }),
      { numRuns: RUNS * 4, endOnFailure: true },
    );
  });

  it('compile and evaluate accept random edits of valid modules', () => {
    fc.assert(
      fc.property(fc.gen(), fc.constantFrom(...LOCALES), fc.array(edit, { minLength: 1, maxLength: 4 }), (g, locale, edits) => {
        const generated = generateModule(chooserFrom(g));
        const source = mutate(format(generated.module, locale), edits);
        const compiled = compile(source, locale);
        expectWellFormed(compiled.diagnostics, source);
        const parsed = parse(source, locale);
        expectWellFormed(parsed.diagnostics, source);
        if (parsed.module !== null) check(parsed.module);
        if (compiled.program !== null) {
          for (const rule of generated.rules) {
            const outcome = evaluate(compiled.program, rule.name, generated.context(chooserFrom(g), rule), { stepBudget: 10_000 });
            if (!outcome.ok) expectWellFormed(outcome.diagnostics, source);
          }
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('evaluate accepts any context and any function name', () => {
    fc.assert(
      fc.property(
        fc.gen(),
        fc.oneof(fc.jsonValue(), fc.anything()),
        fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
        (g, context, functionName) => {
          const generated = generateModule(chooserFrom(g));
          const source = format(generated.module, 'en-US');
          const compiled = compile(source, 'en-US');
          expect(compiled.program).not.toBeNull();
          const names = functionName === undefined ? generated.rules.map((r) => r.name) : [functionName];
          for (const name of names) {
            const outcome = evaluate(compiled.program!, name, context as JsonValue, { stepBudget: 10_000 });
            if (!outcome.ok) {
              expectWellFormed(outcome.diagnostics, source);
              expect(outcome.diagnostics.length).toBeGreaterThan(0);
            }
          }
        },
      ),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});
