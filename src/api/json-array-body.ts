import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * A response body of a JSON array written `perPiece` items at a time, the event loop free between
 * pieces, so a large answer is never serialised in one burst. The same text as JSON.stringify(items).
 */
export function jsonArrayBody(items: readonly unknown[], perPiece: number): Readable {
  async function* pieces(): AsyncGenerator<string> {
    if (items.length === 0) {
      yield '[]';
      return;
    }
    for (let start = 0; start < items.length; start += perPiece) {
      if (start > 0) await nextTurn();
      const piece = JSON.stringify(items.slice(start, start + perPiece));
      // `[a,b]` then `,c,d]`: the brackets of the pieces between are dropped.
      const open = start === 0 ? '[' : ',';
      const close = start + perPiece >= items.length ? ']' : '';
      yield `${open}${piece.slice(1, -1)}${close}`;
    }
  }
  return Readable.from(pieces(), { objectMode: false });
}
