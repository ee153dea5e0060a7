/** Deeper nesting is left to canonicalJson (a `false`), so the proof's recursion stays shallow. */
const MAX_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;
const MINUS = 0x2d;

/** A failed proof: the text is not canonical, or not in a form this proof covers. */
const NO = -1;

/** The control characters JSON.stringify writes with a short escape (`\b \t \n \f \r`), by code. */
const SHORT_ESCAPED = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);
/** What may follow a backslash in a canonical string, besides `u`: JSON.stringify's short escapes. */
const SHORT_ESCAPES = new Set([QUOTE, BACKSLASH, 0x62, 0x66, 0x6e, 0x72, 0x74]);

const isDigit = (code: number) => code >= ZERO && code <= NINE;
const isLowerHex = (code: number) => isDigit(code) || (code >= 0x61 && code <= 0x66);

/**
 * Past a string's closing quote, or NO. Characters are as JSON.stringify writes them: none below
 * U+0020 raw, surrogates only in pairs (canonicalJson refuses a lone one), escapes only JSON.stringify's
 * own (`\"`, `\\`, the five short ones, and `\u00xx` in lowercase for the other control characters).
 * With `plain`, any escape at all is a NO (member names are compared as the text between the quotes).
 */
function stringEnd(text: string, at: number, plain: boolean): number {
  if (text.charCodeAt(at) !== QUOTE) return NO;
  for (let i = at + 1; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) return i + 1;
    if (code < 0x20) return NO;
    if (code === BACKSLASH) {
      if (plain) return NO;
      const next = text.charCodeAt(i + 1);
      if (SHORT_ESCAPES.has(next)) {
        i += 1;
        continue;
      }
      if (next !== 0x75 || text.charCodeAt(i + 2) !== ZERO || text.charCodeAt(i + 3) !== ZERO) return NO;
      const high = text.charCodeAt(i + 4);
      const low = text.charCodeAt(i + 5);
      if ((high !== ZERO && high !== 0x31) || !isLowerHex(low)) return NO;
      const escaped = (high - ZERO) * 16 + (isDigit(low) ? low - ZERO : low - 0x61 + 10);
      if (SHORT_ESCAPED.has(escaped)) return NO;
      i += 5;
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return NO;
      i += 1;
    }
  }
  return NO;
}

/**
 * Past a number, or NO: JSON's number grammar, and the text JSON.stringify writes for the value it
 * denotes (no `-0`, no exponent or trailing zero it would not write, nothing that overflows).
 */
function numberEnd(text: string, at: number): number {
  let i = at;
  if (text.charCodeAt(i) === MINUS) i += 1;
  const digits = i;
  if (text.charCodeAt(i) === ZERO) i += 1;
  else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i += 1;
  else return NO;
  const integerEnd = i;
  if (text.charCodeAt(i) === 0x2e) {
    i += 1;
    if (!isDigit(text.charCodeAt(i))) return NO;
    while (isDigit(text.charCodeAt(i))) i += 1;
  }
  const exponent = text.charCodeAt(i);
  if (exponent === 0x65 || exponent === 0x45) {
    i += 1;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b || sign === MINUS) i += 1;
    if (!isDigit(text.charCodeAt(i))) return NO;
    while (isDigit(text.charCodeAt(i))) i += 1;
  }
  // A safe integer without leading zeros is written as it is; `-0` is written `0`.
  if (i === integerEnd && i - digits <= 15 && !(i - digits === 1 && text.charCodeAt(digits) === ZERO && digits > at)) return i;
  const token = text.slice(at, i);
  return String(Number(token)) === token ? i : NO;
}

function literalEnd(text: string, at: number, literal: string): number {
  return text.startsWith(literal, at) ? at + literal.length : NO;
}

function valueEnd(text: string, at: number, depth: number): number {
  switch (text.charCodeAt(at)) {
    case 0x7b:
      return objectEnd(text, at, depth + 1);
    case 0x5b:
      return arrayEnd(text, at, depth + 1);
    case QUOTE:
      return stringEnd(text, at, false);
    case 0x74:
      return literalEnd(text, at, 'true');
    case 0x66:
      return literalEnd(text, at, 'false');
    case 0x6e:
      return literalEnd(text, at, 'null');
    default:
      return numberEnd(text, at);
  }
}

function arrayEnd(text: string, at: number, depth: number): number {
  if (depth > MAX_DEPTH) return NO;
  let i = at + 1;
  if (text.charCodeAt(i) === 0x5d) return i + 1;
  for (;;) {
    i = valueEnd(text, i, depth);
    if (i === NO) return NO;
    const next = text.charCodeAt(i);
    if (next === 0x5d) return i + 1;
    if (next !== 0x2c) return NO;
    i += 1;
  }
}

/** Members named without escapes, each name after the one before in UTF-16 code units (so none twice). */
function objectEnd(text: string, at: number, depth: number): number {
  if (depth > MAX_DEPTH) return NO;
  let i = at + 1;
  if (text.charCodeAt(i) === 0x7d) return i + 1;
  let previous: string | undefined;
  for (;;) {
    const nameEnd = stringEnd(text, i, true);
    if (nameEnd === NO || text.charCodeAt(nameEnd) !== 0x3a) return NO;
    const name = text.slice(i + 1, nameEnd - 1);
    if (previous !== undefined && !(previous < name)) return NO;
    previous = name;
    i = valueEnd(text, nameEnd + 1, depth);
    if (i === NO) return NO;
    const next = text.charCodeAt(i);
    if (next === 0x7d) return i + 1;
    if (next !== 0x2c) return NO;
    i += 1;
  }
}

/**
 * Whether `text` is the RFC 8785 canonical JSON of an object: the text canonicalJson writes for the
 * value JSON.parse reads from it. Proved in one pass without building the value. Sound, not
 * complete: `true` only for such a text, while a few canonical texts get `false` too (a member name
 * with an escape, nesting deeper than 64), and the caller then reads the value and writes its
 * canonical form.
 */
export function isCanonicalObjectText(text: string): boolean {
  return text.charCodeAt(0) === 0x7b && objectEnd(text, 0, 1) === text.length;
}
