import type { Locale } from '../api-types.js';
import { SUPPORTED_LOCALES } from '../api-types.js';
import { keywordKey } from './keyword-key.js';
import { LOCALE_SYNTAXES } from './locale-syntaxes.js';
import { normalizeCharCode } from './normalize-char.js';

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0xfeff;
}

/** A word of the header keyword: letters only (ASCII after normalisation, or any non-ASCII letter). */
function isWordChar(code: number, raw: number): boolean {
  if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) return true;
  return code === raw && code > 0x7f && !isSpace(code) && code !== 0x201c && code !== 0x300c;
}

/**
 * The longest a module keyword is as written: folding (lower case, `ä` → `ae`) never shortens a
 * word, so a longer word is none, and detection reads no more of it (a source may be a megabyte).
 */
const MAX_MODULE_KEYWORD_LENGTH = Math.max(
  ...SUPPORTED_LOCALES.flatMap((locale) => LOCALE_SYNTAXES[locale].keywords.module.map((spelling) => keywordKey(spelling, LOCALE_SYNTAXES[locale]).length)),
);

/** The first word of the first line that is neither blank nor a comment; null as well when it is longer than `maxLength`. */
export function firstWord(source: string, maxLength: number): string | null {
  let i = 0;
  const n = source.length;
  while (i < n) {
    const raw = source.charCodeAt(i);
    const code = normalizeCharCode(raw);
    if (isSpace(code)) {
      i++;
    } else if (code === 0x23 || (code === 0x2f && normalizeCharCode(source.charCodeAt(i + 1)) === 0x2f)) {
      while (i < n && source.charCodeAt(i) !== 0x0a) i++;
    } else {
      let end = i;
      let word = '';
      while (end < n) {
        const r = source.charCodeAt(end);
        const c = normalizeCharCode(r);
        if (!isWordChar(c, r)) break;
        if (word.length === maxLength) return null;
        word += String.fromCharCode(c);
        end++;
      }
      return word === '' ? null : word;
    }
  }
  return null;
}

/** The locale whose module keyword a word is, or null. */
export function localeOfModuleKeyword(word: string): Locale | null {
  for (const locale of SUPPORTED_LOCALES) {
    const syntax = LOCALE_SYNTAXES[locale];
    const key = keywordKey(word, syntax);
    if (syntax.keywords.module.some((spelling) => keywordKey(spelling, syntax) === key)) return locale;
  }
  return null;
}

/** The locale a source is written in, from its module header keyword (`Module`, `模块`, `Modul`). */
export function detectLocale(source: string): Locale | null {
  const word = firstWord(source, MAX_MODULE_KEYWORD_LENGTH);
  return word === null ? null : localeOfModuleKeyword(word);
}
