import type { LocaleSyntax } from './locale-syntax.js';

const GERMAN_SPECIAL = /[äöüß]/;

function foldGerman(word: string): string {
  if (!GERMAN_SPECIAL.test(word)) return word;
  let out = '';
  let from = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word[i];
    const folded = c === 'ä' ? 'ae' : c === 'ö' ? 'oe' : c === 'ü' ? 'ue' : c === 'ß' ? 'ss' : null;
    if (folded === null) continue;
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
