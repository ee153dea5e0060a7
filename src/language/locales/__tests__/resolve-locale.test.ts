import { describe, expect, it } from 'vitest';
import { resolveLocale } from '../index.js';

describe('resolveLocale', () => {
  it.each([
    ['en-US', 'en-US'],
    ['en_us', 'en-US'],
    ['EN', 'en-US'],
    ['en', 'en-US'],
    ['zh-CN', 'zh-CN'],
    ['ZH_cn', 'zh-CN'],
    ['zh', 'zh-CN'],
    ['de-DE', 'de-DE'],
    ['de_de', 'de-DE'],
    ['De', 'de-DE'],
  ])('resolves %s to %s', (tag, locale) => {
    expect(resolveLocale(tag)).toBe(locale);
  });

  it.each(['fr-FR', 'en-GB', 'zh-TW', 'de-AT', '', 'english', ' en', 'en-US-x', 'en--US'])('rejects %j', (tag) => {
    expect(resolveLocale(tag)).toBeNull();
  });
});
