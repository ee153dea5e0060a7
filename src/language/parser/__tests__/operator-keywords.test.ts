import { describe, expect, it } from 'vitest';
import { SUPPORTED_LOCALES, type Locale } from '../../api-types.js';
import { ARITHMETIC_CONCEPTS, COMPARISON_CONCEPTS, type Concept } from '../../locales/concepts.js';
import { LOCALE_SYNTAXES } from '../../locales/index.js';
import { parse } from '../index.js';
import { inRule } from './test-support.js';

/** The diagnostics of `Return <first spelling of concept>.` in a locale, as `code message`. */
function returningKeyword(concept: Concept, locale: Locale): string[] {
  const spelling = LOCALE_SYNTAXES[locale].keywords[concept][0]!;
  const keyword = { 'en-US': 'Return', 'zh-CN': '返回', 'de-DE': 'Liefere' }[locale];
  const terminator = locale === 'zh-CN' ? '。' : '.';
  const result = parse(inRule(`  ${keyword} ${spelling}${terminator}`, locale), locale);
  return result.diagnostics.map((d) => `${d.code} ${d.message}`);
}

describe('an operator keyword where an operand belongs', () => {
  it.each(SUPPORTED_LOCALES)('%s: every comparison and arithmetic keyword means the operand is missing', (locale) => {
    for (const concept of [...COMPARISON_CONCEPTS, ...ARITHMETIC_CONCEPTS, 'and', 'or', 'setTo'] as const) {
      const diagnostics = returningKeyword(concept, locale);
      expect(diagnostics.length, concept).toBeGreaterThan(0);
      expect(diagnostics[0], concept).toMatch(/^PL1006 expected an expression, found /);
    }
  });

  it.each(SUPPORTED_LOCALES)('%s: other keywords there are taken as a name written without backticks', (locale) => {
    for (const concept of ['module', 'rule', 'match', 'int'] as const) {
      expect(returningKeyword(concept, locale)[0], concept).toMatch(/^PL1013 /);
    }
  });
});
