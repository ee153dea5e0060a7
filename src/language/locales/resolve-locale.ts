import type { Locale } from '../api-types.js';

const TAGS: ReadonlyMap<string, Locale> = new Map([
  ['en-us', 'en-US'],
  ['en', 'en-US'],
  ['zh-cn', 'zh-CN'],
  ['zh', 'zh-CN'],
  ['de-de', 'de-DE'],
  ['de', 'de-DE'],
]);

/** `en-US`, `zh_cn`, `DE`, … → the supported locale; anything else → null (no fallback). */
export function resolveLocale(tag: string): Locale | null {
  if (typeof tag !== 'string') return null;
  return TAGS.get(tag.toLowerCase().replace('_', '-')) ?? null;
}
