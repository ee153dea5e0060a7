import { InvalidSourceCharacter, type Diagnostic, type DiagnosticText } from '../diagnostics/index.js';
import { normalizeCharCode } from '../locales/normalize-char.js';
import { lineSpan, syntaxDiagnostic } from './syntax-diagnostic.js';

export interface NormalizedSource {
  /** Same length as the source: every UTF-16 unit maps to exactly one unit. */
  text: string;
  diagnostics: Diagnostic[];
}

/** Anything the slow path has to look at: controls, CJK punctuation, surrogates, full-width forms. */
const NEEDS_WORK = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u3000-\u3002\u3010\u3011\ud800-\udfff\uff01-\uff5e]/;

function hex(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Maps full-width forms to ASCII (docs/language.md §2) and reports characters that cannot appear in
 * source (controls other than tab and line ends, unpaired surrogates), which become spaces.
 * String literals and comments are later read from the original text, so they keep what the user wrote.
 */
export function normalizeSource(source: string, maxDiagnostics: number): NormalizedSource {
  if (!NEEDS_WORK.test(source)) return { text: source, diagnostics: [] };
  const diagnostics: Diagnostic[] = [];
  const parts: string[] = [];
  let from = 0;
  let line = 1;
  let lineStart = 0;
  const replace = (i: number, replacement: string): void => {
    parts.push(source.slice(from, i), replacement);
    from = i + 1;
  };
  const report = (i: number, text: DiagnosticText): void => {
    if (diagnostics.length < maxDiagnostics) {
      diagnostics.push(syntaxDiagnostic(text, lineSpan(i, i + 1, line, lineStart)));
    }
    replace(i, ' ');
  };
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code === 0x0a) {
      line++;
      lineStart = i + 1;
    } else if (code === 0x0d) {
      if (source.charCodeAt(i + 1) !== 0x0a) report(i, InvalidSourceCharacter.loneCarriageReturn());
    } else if (code < 0x20 && code !== 0x09) {
      report(i, InvalidSourceCharacter.controlCharacter(hex(code)));
    } else if (code >= 0x7f && code <= 0x9f) {
      report(i, InvalidSourceCharacter.controlCharacter(hex(code)));
    } else if (code >= 0xd800 && code <= 0xdbff) {
      const next = source.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else report(i, InvalidSourceCharacter.unpairedSurrogate(hex(code)));
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      report(i, InvalidSourceCharacter.unpairedSurrogate(hex(code)));
    } else {
      const mapped = normalizeCharCode(code);
      if (mapped !== code) replace(i, String.fromCharCode(mapped));
    }
  }
  parts.push(source.slice(from));
  return { text: parts.join(''), diagnostics };
}
