import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { countingLoopTurns } from '../../../test/support/loop-turns.js';
import { jsonArrayBody } from '../json-array-body.js';

describe('jsonArrayBody', () => {
  it.each([0, 1, 2, 3, 7, 10])('writes the text of JSON.stringify for %i items, in pieces', async (count) => {
    const items = Array.from({ length: count }, (_, i) => ({ seq: i, payload: { text: `"quoted" ${i}`, list: [i, null] }, nothing: undefined }));
    const pieces: string[] = [];
    for await (const piece of jsonArrayBody(items, 3)) pieces.push(String(piece));
    expect(pieces.join('')).toBe(JSON.stringify(items));
    expect(pieces).toHaveLength(Math.max(1, Math.ceil(count / 3)));
  });

  it('lets the event loop run between pieces', async () => {
    const { value: body, turns } = await countingLoopTurns(() => text(jsonArrayBody(Array.from({ length: 50 }, (_, i) => i), 5)));
    expect(JSON.parse(body)).toHaveLength(50);
    expect(turns).toBeGreaterThan(1);
  });
});
