import type { Locale } from '../api-types.js';
import {
  BacktickNotName,
  InvalidEscape,
  InvalidNumber,
  TabIndentation,
  UnevenIndentation,
  UnexpectedCharacter,
  UnterminatedBacktick,
  UnterminatedString,
  type DiagnosticText,
} from '../diagnostics/index.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Concept } from '../locales/concepts.js';
import { getKeywordIndex, type KeywordIndex } from '../locales/keyword-index.js';
import { keywordKey } from '../locales/keyword-key.js';
import { isAsciiDigit, isIdentPart, isIdentStart } from './char-classes.js';
import { normalizeSource } from './normalize-source.js';
import { lineSpan, syntaxDiagnostic } from './syntax-diagnostic.js';
import type { SourceComment, Token, TokenizeResult, TokenKind } from './token.js';

/** The parser stops at this many diagnostics in total (the lexer never needs to produce more); the checker reports at most this many of each severity. */
export const MAX_DIAGNOSTICS = 20;

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const HASH = 0x23;
const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const BACKTICK = 0x60;
const DOT = 0x2e;
const UNDERSCORE = 0x5f;
const QUOTE = 0x22;
const FULLWIDTH_QUOTE = 0xff02;
const LEFT_DOUBLE_QUOTE = 0x201c;
const RIGHT_DOUBLE_QUOTE = 0x201d;
const LEFT_CORNER = 0x300c;
const RIGHT_CORNER = 0x300d;

const SINGLE_CHAR_TOKENS: ReadonlyMap<number, TokenKind> = new Map<number, TokenKind>([
  [0x3a, 'colon'],
  [0x2c, 'comma'],
  [0x28, 'lparen'],
  [0x29, 'rparen'],
  [0x5b, 'lbracket'],
  [0x5d, 'rbracket'],
  [0x2b, 'plus'],
  [0x2d, 'minus'],
  [0x2a, 'star'],
  [0x25, 'percent'],
]);

function isHexDigit(code: number): boolean {
  return isAsciiDigit(code) || (code >= 0x61 && code <= 0x66) || (code >= 0x41 && code <= 0x46);
}

/**
 * Turns source text into tokens, with layout tokens for line ends and indentation (`newline`,
 * `indent`, `dedent`). Problems become diagnostics; the token stream is always usable.
 */
export function tokenize(source: string, locale: Locale): TokenizeResult {
  return new Lexer(source, getKeywordIndex(locale)).run();
}

class Lexer {
  /** The normalised text: structure is read here; strings and comments are read from `src`. */
  private readonly s: string;
  private readonly n: number;
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  private level = 0;
  private lineHasTokens = false;
  private readonly tokens: Token[] = [];
  private readonly comments: SourceComment[] = [];
  private readonly diagnostics: Diagnostic[];

  constructor(
    private readonly src: string,
    private readonly keywords: KeywordIndex,
  ) {
    const normalized = normalizeSource(src, MAX_DIAGNOSTICS);
    this.s = normalized.text;
    this.n = normalized.text.length;
    this.diagnostics = normalized.diagnostics;
  }

  run(): TokenizeResult {
    // A byte-order mark is not part of the first line; columns count from after it.
    if (this.s.charCodeAt(0) === 0xfeff) {
      this.pos = 1;
      this.lineStart = 1;
    }
    while (this.pos < this.n) {
      if (this.startLine()) this.scanLine();
    }
    if (this.lineHasTokens) this.push('newline', this.n, this.n, '');
    while (this.level > 0) {
      this.push('dedent', this.n, this.n, '');
      this.level--;
    }
    this.push('eof', this.n, this.n, '');
    return { tokens: this.tokens, comments: this.comments, diagnostics: this.diagnostics };
  }

  private report(text: DiagnosticText, start: number, end: number): void {
    if (this.diagnostics.length < MAX_DIAGNOSTICS) {
      this.diagnostics.push(syntaxDiagnostic(text, lineSpan(start, end, this.line, this.lineStart)));
    }
  }

  private push(
    kind: TokenKind,
    start: number,
    end: number,
    text: string,
    concepts: readonly Concept[] | null = null,
    value: number | string | null = null,
  ): void {
    const column = start - this.lineStart + 1;
    this.tokens.push({
      kind,
      text,
      concepts,
      value,
      start,
      end,
      line: this.line,
      column,
      endLine: this.line,
      endColumn: column + (end - start),
    });
    if (kind !== 'indent' && kind !== 'dedent' && kind !== 'newline' && kind !== 'eof') this.lineHasTokens = true;
  }

  private newLine(): void {
    this.line++;
    this.lineStart = this.pos;
    this.lineHasTokens = false;
  }

  /**
   * Measures the indentation of the line at `pos`. Blank and comment-only lines are consumed here
   * (their indentation means nothing); returns true when the line holds code, with `indent` /
   * `dedent` tokens already emitted.
   */
  private startLine(): boolean {
    const s = this.s;
    let p = this.pos;
    let width = 0;
    let tabAt = -1;
    for (; p < this.n; p++) {
      const c = s.charCodeAt(p);
      if (c === SPACE) width++;
      else if (c === TAB) {
        if (tabAt < 0) tabAt = p;
        width += 2;
      } else break;
    }
    if (p >= this.n) {
      this.pos = p;
      return false;
    }
    const c = s.charCodeAt(p);
    if (c === LF || (c === CR && s.charCodeAt(p + 1) === LF)) {
      this.pos = p + (c === LF ? 1 : 2);
      this.newLine();
      return false;
    }
    if (c === HASH || (c === SLASH && s.charCodeAt(p + 1) === SLASH)) {
      this.comment(p, true);
      this.skipLineEnd();
      return false;
    }
    if (tabAt >= 0) {
      this.report(TabIndentation(), tabAt, tabAt + 1);
    } else if (width % 2 !== 0) {
      this.report(UnevenIndentation.odd(width), this.lineStart, p);
    }
    let level = Math.floor(width / 2);
    if (level > this.level + 1) {
      if (tabAt < 0 && width % 2 === 0) {
        this.report(UnevenIndentation.jump(this.level * 2, width), this.lineStart, p);
      }
      level = this.level + 1;
    }
    if (level > this.level) {
      this.push('indent', p, p, '');
      this.level = level;
    }
    while (level < this.level) {
      this.push('dedent', p, p, '');
      this.level--;
    }
    this.pos = p;
    return true;
  }

  private skipLineEnd(): void {
    const c = this.s.charCodeAt(this.pos);
    if (c === LF) this.pos += 1;
    else if (c === CR && this.s.charCodeAt(this.pos + 1) === LF) this.pos += 2;
    else return;
    this.newLine();
  }

  private scanLine(): void {
    const s = this.s;
    while (this.pos < this.n) {
      const start = this.pos;
      const c = s.charCodeAt(start);
      if (c === LF || (c === CR && s.charCodeAt(start + 1) === LF)) {
        if (this.lineHasTokens) this.push('newline', start, start, '');
        this.skipLineEnd();
        return;
      }
      if (c === SPACE || c === TAB || c === CR) {
        this.pos++;
        continue;
      }
      if (c === HASH || (c === SLASH && s.charCodeAt(start + 1) === SLASH)) {
        this.comment(start, false);
        continue;
      }
      if (isAsciiDigit(c)) {
        this.number();
        continue;
      }
      const codePoint = c >= 0xd800 && c <= 0xdbff ? s.codePointAt(start)! : c;
      if (isIdentStart(codePoint)) {
        this.word();
        continue;
      }
      if (c === QUOTE || c === LEFT_DOUBLE_QUOTE || c === LEFT_CORNER) {
        this.string();
        continue;
      }
      if (c === BACKTICK) {
        this.backtickName();
        continue;
      }
      if (c === DOT) {
        const next = s.charCodeAt(start + 1);
        const ends =
          start + 1 >= this.n ||
          next === SPACE ||
          next === TAB ||
          next === LF ||
          next === CR ||
          next === HASH ||
          (next === SLASH && s.charCodeAt(start + 2) === SLASH);
        this.push(ends ? 'term' : 'dot', start, start + 1, '.');
        this.pos++;
        continue;
      }
      const single = SINGLE_CHAR_TOKENS.get(c);
      if (single !== undefined) {
        this.push(single, start, start + 1, s[start]!);
        this.pos++;
        continue;
      }
      this.operator(c, codePoint);
    }
  }

  private operator(c: number, codePoint: number): void {
    const s = this.s;
    const start = this.pos;
    const next = s.charCodeAt(start + 1);
    const two = (kind: TokenKind, text: string): void => {
      this.push(kind, start, start + 2, text);
      this.pos += 2;
    };
    const one = (kind: TokenKind, text: string): void => {
      this.push(kind, start, start + 1, text);
      this.pos += 1;
    };
    switch (c) {
      case 0x3d: // =
        return next === 0x3d ? two('eq', '==') : one('assign', '=');
      case 0x21: // !
        if (next === 0x3d) return two('ne', '!=');
        break;
      case 0x3c: // <
        return next === 0x3d ? two('le', '<=') : one('lt', '<');
      case 0x3e: // >
        return next === 0x3d ? two('ge', '>=') : one('gt', '>');
      case SLASH:
        return one('slash', '/');
      default:
        break;
    }
    const width = codePoint > 0xffff ? 2 : 1;
    const shown = this.src.slice(start, start + width);
    this.report(UnexpectedCharacter(shown), start, start + width);
    this.pos += width;
  }

  private comment(start: number, ownLine: boolean): void {
    const marker = this.s.charCodeAt(start) === HASH ? 1 : 2;
    let end = start;
    while (end < this.n && this.s.charCodeAt(end) !== LF) end++;
    const text = this.src.slice(start + marker, end).trim();
    this.comments.push({ text, start, end, line: this.line, ownLine });
    this.pos = end;
  }

  /** End of the identifier that starts at `p` (which must be an identifier start). */
  private wordEnd(p: number): number {
    const s = this.s;
    while (p < this.n) {
      const c = s.charCodeAt(p);
      if (c < 0x80) {
        if (!isIdentPart(c)) break;
        p++;
      } else {
        const codePoint = c >= 0xd800 && c <= 0xdbff ? s.codePointAt(p)! : c;
        if (!isIdentPart(codePoint)) break;
        p += codePoint > 0xffff ? 2 : 1;
      }
    }
    return p;
  }

  /** Where a multi-word keyword whose later words are `rest` ends, when it continues at `p`; else -1. */
  private matchPhrase(p: number, rest: readonly string[]): number {
    const s = this.s;
    for (const expected of rest) {
      let q = p;
      while (q < this.n && (s.charCodeAt(q) === SPACE || s.charCodeAt(q) === TAB)) q++;
      if (q === p || q >= this.n) return -1;
      const c = s.charCodeAt(q);
      if (!isIdentStart(c >= 0xd800 && c <= 0xdbff ? s.codePointAt(q)! : c)) return -1;
      const end = this.wordEnd(q);
      if (keywordKey(s.slice(q, end), this.keywords.syntax) !== expected) return -1;
      p = end;
    }
    return p;
  }

  private word(): void {
    const start = this.pos;
    const end = this.wordEnd(start);
    const text = this.s.slice(start, end);
    const key = keywordKey(text, this.keywords.syntax);
    const phrases = this.keywords.phrases.get(key);
    if (phrases) {
      for (const phrase of phrases) {
        const phraseEnd = this.matchPhrase(end, phrase.rest);
        if (phraseEnd >= 0) {
          this.push('keyword', start, phraseEnd, this.s.slice(start, phraseEnd), phrase.concepts);
          this.pos = phraseEnd;
          return;
        }
      }
    }
    const concepts = this.keywords.words.get(key);
    this.push(concepts ? 'keyword' : 'ident', start, end, text, concepts ?? null);
    this.pos = end;
  }

  private number(): void {
    const s = this.s;
    const start = this.pos;
    let p = start;
    while (p < this.n && (isAsciiDigit(s.charCodeAt(p)) || s.charCodeAt(p) === UNDERSCORE)) p++;
    let isFloat = false;
    if (s.charCodeAt(p) === DOT && isAsciiDigit(s.charCodeAt(p + 1))) {
      isFloat = true;
      p++;
      while (p < this.n && (isAsciiDigit(s.charCodeAt(p)) || s.charCodeAt(p) === UNDERSCORE)) p++;
    }
    let valid = true;
    // Letters glued to a number (`18岁`, `12abc`) are not a separate name: the whole word is invalid.
    if (p < this.n) {
      const c = s.charCodeAt(p);
      if (isIdentPart(c >= 0xd800 && c <= 0xdbff ? s.codePointAt(p)! : c)) {
        valid = false;
        p = this.wordEnd(p);
      }
    }
    const text = s.slice(start, p);
    if (valid && text.includes('_')) {
      valid = !/__|_$|_\.|\._/.test(text);
    }
    this.pos = p;
    if (!valid) {
      this.report(InvalidNumber.malformed(text), start, p);
      this.push(isFloat ? 'float' : 'int', start, p, text, null, 0);
      return;
    }
    const digits = text.includes('_') ? text.replaceAll('_', '') : text;
    const value = Number(digits);
    if (isFloat) {
      if (!Number.isFinite(value)) {
        this.report(InvalidNumber.tooLarge(text), start, p);
        this.push('float', start, p, text, null, 0);
        return;
      }
      this.push('float', start, p, text, null, value);
      return;
    }
    if (value > Number.MAX_SAFE_INTEGER) {
      this.report(InvalidNumber.unsafeInteger(text), start, p);
      this.push('int', start, p, text, null, 0);
      return;
    }
    this.push('int', start, p, text, null, value);
  }

  private string(): void {
    const src = this.src;
    const start = this.pos;
    const open = src.charCodeAt(start);
    // The opening quote may be a full-width `＂`, which normalises to `"`.
    const ascii = open === QUOTE || open === FULLWIDTH_QUOTE;
    const close = open === LEFT_DOUBLE_QUOTE ? RIGHT_DOUBLE_QUOTE : open === LEFT_CORNER ? RIGHT_CORNER : QUOTE;
    const parts: string[] = [];
    let p = start + 1;
    let from = p;
    for (;;) {
      if (p >= this.n) break;
      const c = src.charCodeAt(p);
      if (c === LF || (c === CR && src.charCodeAt(p + 1) === LF)) break;
      if (c === close || (ascii && c === FULLWIDTH_QUOTE)) {
        parts.push(src.slice(from, p));
        this.push('string', start, p + 1, src.slice(start, p + 1), null, parts.join(''));
        this.pos = p + 1;
        return;
      }
      if (c === BACKSLASH) {
        parts.push(src.slice(from, p));
        p = this.escape(p, parts);
        from = p;
        continue;
      }
      p++;
    }
    parts.push(src.slice(from, p));
    this.report(UnterminatedString(), start, p);
    this.push('string', start, p, src.slice(start, p), null, parts.join(''));
    this.pos = p;
  }

  /** Decodes the escape at `p` (a backslash) into `parts`; returns the offset after it. */
  private escape(p: number, parts: string[]): number {
    const src = this.src;
    const c = src.charCodeAt(p + 1);
    switch (c) {
      case QUOTE:
        parts.push('"');
        return p + 2;
      case BACKSLASH:
        parts.push('\\');
        return p + 2;
      case 0x6e: // n
        parts.push('\n');
        return p + 2;
      case 0x74: // t
        parts.push('\t');
        return p + 2;
      case 0x75: {
        // u{hex}
        if (src.charCodeAt(p + 2) === 0x7b) {
          let q = p + 3;
          while (q < this.n && isHexDigit(src.charCodeAt(q))) q++;
          const digits = q - (p + 3);
          if (src.charCodeAt(q) === 0x7d && digits >= 1 && digits <= 6) {
            const codePoint = parseInt(src.slice(p + 3, q), 16);
            if (codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff)) {
              parts.push(String.fromCodePoint(codePoint));
              return q + 1;
            }
          }
          const end = src.charCodeAt(q) === 0x7d ? q + 1 : q;
          this.report(InvalidEscape.unicode(src.slice(p, end)), p, end);
          return end;
        }
        break;
      }
      default:
        break;
    }
    const atLineEnd = p + 1 >= this.n || c === LF || c === CR;
    const end = atLineEnd ? p + 1 : p + 2;
    this.report(InvalidEscape.unknown(src.slice(p, end)), p, end);
    if (!atLineEnd) parts.push(src.slice(p + 1, end));
    return end;
  }

  private backtickName(): void {
    const s = this.s;
    const start = this.pos;
    const first = s.charCodeAt(start + 1);
    if (start + 1 < this.n && isIdentStart(first >= 0xd800 && first <= 0xdbff ? s.codePointAt(start + 1)! : first)) {
      const end = this.wordEnd(start + 1);
      if (s.charCodeAt(end) === BACKTICK) {
        this.push('ident', start, end + 1, s.slice(start + 1, end));
        this.pos = end + 1;
        return;
      }
    }
    let q = start + 1;
    while (q < this.n && s.charCodeAt(q) !== BACKTICK && s.charCodeAt(q) !== LF && s.charCodeAt(q) !== CR) q++;
    if (s.charCodeAt(q) === BACKTICK) {
      this.report(BacktickNotName(this.src.slice(start + 1, q)), start, q + 1);
      this.push('ident', start, q + 1, s.slice(start + 1, q));
      this.pos = q + 1;
      return;
    }
    this.report(UnterminatedBacktick(), start, q);
    this.pos = q;
  }
}
