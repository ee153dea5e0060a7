import type { Locale } from '../api-types.js';
import { isIdentPart, isIdentStart } from '../lexer/char-classes.js';
import { isReservedWord } from '../locales/is-reserved-word.js';

function isPlainName(name: string): boolean {
  let i = 0;
  for (const ch of name) {
    const codePoint = ch.codePointAt(0)!;
    if (i === 0 ? !isIdentStart(codePoint) : !isIdentPart(codePoint)) return false;
    i++;
  }
  return i > 0;
}

/** A name as written in `locale`: in backticks when it collides with a keyword there. */
export function formatName(name: string, locale: Locale): string {
  return isPlainName(name) && !isReservedWord(name, locale) ? name : `\`${name}\``;
}
