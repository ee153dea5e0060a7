import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sseParser } from '../../console/event-stream.js';

/** What the parser made of `pieces`, fed one after another. */
function parsed(pieces: readonly string[]) {
  const events: Array<{ data: string; id: string | null }> = [];
  const retries: number[] = [];
  const parser = sseParser({ onEvent: (data, id) => events.push({ data, id }), onRetry: (ms) => retries.push(ms) });
  for (const piece of pieces) parser.push(piece);
  return { events, retries };
}

const STREAM = 'retry: 3000\n\nid: 1\ndata: {"sequence":1}\n\n: heartbeat\n\nid: 2\ndata: {"a":\ndata: 2}\n\ndata: no id\n\nid: 3\ndata: {"sequence":3}\n\n';
const EXPECTED = [
  { data: '{"sequence":1}', id: '1' },
  { data: '{"a":\n2}', id: '2' },
  { data: 'no id', id: null },
  { data: '{"sequence":3}', id: '3' },
];

describe('the console’s Server-Sent Events parser', () => {
  it('reads events with their ids, joins data lines, skips comments and takes retry', () => {
    expect(parsed([STREAM])).toEqual({ events: EXPECTED, retries: [3000] });
    expect(parsed([STREAM.replaceAll('\n', '\r\n')]).events).toEqual(EXPECTED);
  });

  it('reads the same events however the text is cut into pieces', () => {
    fc.assert(
      fc.property(fc.constantFrom('\n', '\r\n', '\r'), fc.uniqueArray(fc.integer({ min: 1, max: 2 * STREAM.length }), { maxLength: 12 }), (newline, cuts) => {
        const text = STREAM.replaceAll('\n', newline);
        const at = [0, ...cuts.filter((cut) => cut < text.length).sort((a, b) => a - b), text.length];
        // A last `\r` may be half of a `\r\n` until more comes: a heartbeat's line end follows it.
        expect(parsed([...at.slice(1).map((end, i) => text.slice(at[i], end)), '\n']).events).toEqual(EXPECTED);
      }),
    );
  });

  it('holds back an event until the blank line that ends it', () => {
    expect(parsed(['id: 4\ndata: {}\n']).events).toEqual([]);
    expect(parsed(['id: 4\ndata: {}\n', '\n']).events).toEqual([{ data: '{}', id: '4' }]);
  });
});
