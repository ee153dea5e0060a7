import { SourceTooLarge, type Diagnostic } from '../diagnostics/index.js';
import { syntaxDiagnostic } from './syntax-diagnostic.js';

export const MAX_SOURCE_BYTES = 64 * 1024;

/** Bytes the text takes in UTF-8, stopping early once past `limit`; also returns where the limit was crossed. */
function utf8Length(text: string, limit: number): { bytes: number; overflowAt: number } {
  let bytes = 0;
  let overflowAt = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
    if (overflowAt < 0 && bytes > limit) overflowAt = i;
  }
  return { bytes, overflowAt };
}

/** PL4001 when the source is larger than 64 KiB of UTF-8; the span covers the part beyond the limit. */
export function checkSourceSize(source: string): Diagnostic | null {
  if (source.length * 3 <= MAX_SOURCE_BYTES) return null;
  const { bytes, overflowAt } = utf8Length(source, MAX_SOURCE_BYTES);
  if (bytes <= MAX_SOURCE_BYTES) return null;
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < overflowAt; i++) {
    if (source.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  let endLine = line;
  let endLineStart = lineStart;
  for (let i = overflowAt; i < source.length; i++) {
    if (source.charCodeAt(i) === 0x0a) {
      endLine++;
      endLineStart = i + 1;
    }
  }
  return syntaxDiagnostic(SourceTooLarge(bytes, MAX_SOURCE_BYTES), {
    start: overflowAt,
    end: source.length,
    line,
    column: overflowAt - lineStart + 1,
    endLine,
    endColumn: source.length - endLineStart + 1,
  });
}
