import { describe, expect, it } from 'vitest';
import { SUPPORTED_LOCALES } from '../../api-types.js';
import { CONCEPTS, getKeywordIndex, isReservedWord, keywordKey, LOCALE_SYNTAXES } from '../index.js';

describe('keyword tables', () => {
  it.each(SUPPORTED_LOCALES)('%s spells every concept (only zh-CN closes `For each` with a word)', (locale) => {
    const syntax = LOCALE_SYNTAXES[locale];
    for (const concept of CONCEPTS) {
      if (concept === 'inEnd') continue;
      expect(syntax.keywords[concept].length, concept).toBeGreaterThan(0);
    }
    expect(syntax.keywords.inEnd.length > 0).toBe(locale === 'zh-CN');
  });

  it('lets one spelling serve several concepts', () => {
    expect(getKeywordIndex('zh-CN').words.get('为')).toEqual(['as', 'be']);
    expect(getKeywordIndex('de-DE').words.get('mit')).toEqual(['has', 'with']);
    expect(getKeywordIndex('en-US').words.get('and')).toEqual(['and', 'betweenAnd']);
  });

  it('orders multi-word keywords longest first', () => {
    const phrases = getKeywordIndex('en-US').phrases.get('is')!;
    const lengths = phrases.map((phrase) => phrase.rest.length);
    expect(lengths).toEqual([...lengths].sort((a, b) => b - a));
    expect(phrases.some((phrase) => phrase.rest.join(' ') === 'less than')).toBe(true);
  });

  it('folds case in en-US and de-DE and German ASCII spellings in de-DE only', () => {
    expect(keywordKey('OTHERWISE', LOCALE_SYNTAXES['en-US'])).toBe('otherwise');
    expect(keywordKey('Prüfe', LOCALE_SYNTAXES['de-DE'])).toBe('pruefe');
    expect(keywordKey('GRÖẞER', LOCALE_SYNTAXES['de-DE'])).toBe('groesser');
    expect(keywordKey('Prüfe', LOCALE_SYNTAXES['en-US'])).toBe('prüfe');
    expect(keywordKey('Ab', LOCALE_SYNTAXES['zh-CN'])).toBe('Ab');
  });

  it('treats keywords and words of multi-word keywords as reserved for the formatter', () => {
    expect(isReservedWord('in', 'en-US')).toBe(true);
    expect(isReservedWord('IS', 'en-US')).toBe(true);
    expect(isReservedWord('least', 'en-US')).toBe(true);
    expect(isReservedWord('rate', 'en-US')).toBe(false);
    expect(isReservedWord('in', 'zh-CN')).toBe(false);
    expect(isReservedWord('中', 'zh-CN')).toBe(true);
    expect(isReservedWord('Pruefe', 'de-DE')).toBe(true);
    expect(isReservedWord('Größe', 'de-DE')).toBe(false);
  });
});
