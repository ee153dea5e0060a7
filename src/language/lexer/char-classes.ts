/**
 * Identifier characters: a Unicode letter or `_`, then letters, digits, `_` (combining marks too,
 * so decomposed accents work). Non-ASCII answers are cached per BMP code unit so the lexer never
 * runs a regular expression twice for the same character.
 */
/** The Unicode classes of identifier characters besides `_`, in regular-expression syntax (the editor grammar uses them too). */
export const IDENT_START_CLASSES = '\\p{L}';
export const IDENT_PART_CLASSES = '\\p{L}\\p{Nd}\\p{Mn}\\p{Mc}';
const LETTER = new RegExp(`[${IDENT_START_CLASSES}]`, 'u');
const PART = new RegExp(`[${IDENT_PART_CLASSES}]`, 'u');

const START_BIT = 1;
const PART_BIT = 2;
const KNOWN_BIT = 4;
const bmpCache = new Uint8Array(0x10000);

function classify(codePoint: number): number {
  const ch = String.fromCodePoint(codePoint);
  return (LETTER.test(ch) ? START_BIT : 0) | (PART.test(ch) ? PART_BIT : 0) | KNOWN_BIT;
}

function flags(codePoint: number): number {
  if (codePoint > 0xffff) return classify(codePoint);
  let cached = bmpCache[codePoint]!;
  if (cached === 0) {
    cached = classify(codePoint);
    bmpCache[codePoint] = cached;
  }
  return cached;
}

export function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

export function isIdentStart(codePoint: number): boolean {
  if (codePoint < 0x80) {
    return (codePoint >= 0x61 && codePoint <= 0x7a) || (codePoint >= 0x41 && codePoint <= 0x5a) || codePoint === 0x5f;
  }
  if (codePoint >= 0x4e00 && codePoint <= 0x9fff) return true;
  return (flags(codePoint) & START_BIT) !== 0;
}

export function isIdentPart(codePoint: number): boolean {
  if (codePoint < 0x80) {
    return (
      (codePoint >= 0x61 && codePoint <= 0x7a) ||
      (codePoint >= 0x41 && codePoint <= 0x5a) ||
      (codePoint >= 0x30 && codePoint <= 0x39) ||
      codePoint === 0x5f
    );
  }
  if (codePoint >= 0x4e00 && codePoint <= 0x9fff) return true;
  return (flags(codePoint) & PART_BIT) !== 0;
}
