import type { LocaleSyntax } from './locale-syntax.js';

/** The ASCII spellings de-DE keywords may be written with (`groesser` for `größer`). */
export const GERMAN_ASCII_SPELLINGS: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss' };
const GERMAN_SPECIAL = new RegExp(`[${Object.keys(GERMAN_ASCII_SPELLINGS).join('')}]`);

function foldGerman(word: string): string {
  if (!GERMAN_SPECIAL.test(word)) return word;
  let out = '';
  let from = 0;
  for (let i = 0; i < word.length; i++) {
    const folded = GERMAN_ASCII_SPELLINGS[word[i]!];
    if (folded === undefined) continue;
    out += word.slice(from, i) + folded;
    from = i + 1;
  }
  return out + word.slice(from);
}

/** The form under which a word is compared with keywords of a locale (case and ASCII-spelling folding). */
export function keywordKey(word: string, syntax: LocaleSyntax): string {
  const cased = syntax.caseInsensitive ? word.toLowerCase() : word;
  return syntax.germanAsciiSpellings ? foldGerman(cased) : cased;
}
