import { describe, expect, it } from 'vitest';
import type { PolicyEvaluateReply } from '../policy-evaluate-job.js';
import { DEFAULT_REPLY_MESSAGE_BYTES, replyMessages, type SettledItem } from '../reply-messages.js';

/** A settled item whose JSON text is about `bytes` long. */
function settled(position: number, bytes: number, fill = 'x'): SettledItem {
  const json = JSON.stringify({ kind: 'evaluated', ok: true, value: '', n: position });
  return { position, json: JSON.stringify({ kind: 'evaluated', ok: true, value: fill.repeat(Math.max(0, bytes - json.length)), n: position }) };
}

type Results = Extract<PolicyEvaluateReply, { results: unknown }>;
const parse = (message: string) => JSON.parse(message) as Results;

describe('replyMessages', () => {
  it('puts a few results in one message as [position, result] pairs', () => {
    const items = [settled(3, 100), settled(0, 100)];
    const messages = replyMessages('b-1', items);
    expect(messages).toHaveLength(1);
    expect(parse(messages[0]!)).toEqual({ batchId: 'b-1', results: items.map((item) => [item.position, JSON.parse(item.json)]) });
  });

  it('sends nothing for nothing', () => {
    expect(replyMessages('b-1', [])).toEqual([]);
  });

  it('never exceeds the bound and keeps every pair in order', () => {
    const maxBytes = 4096;
    for (const sizes of [
      Array.from({ length: 100 }, (_, i) => 100 + ((i * 37) % 900)),
      Array.from({ length: 40 }, () => 1000),
      Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 3900 : 50)),
    ]) {
      const items = sizes.map((bytes, n) => settled(n * 2, bytes));
      const messages = replyMessages('batch-with-a-long-id-0123456789', items, maxBytes);
      expect(messages.length).toBeGreaterThan(1);
      for (const message of messages) expect(Buffer.byteLength(message)).toBeLessThanOrEqual(maxBytes);
      const pairs = messages.flatMap((message) => parse(message).results);
      expect(pairs.map(([position]) => position)).toEqual(items.map((item) => item.position));
      expect(pairs.map(([, result]) => result)).toEqual(items.map((item) => JSON.parse(item.json)));
    }
  });

  it('sends a single result larger than the bound alone', () => {
    const items = [settled(0, 100), settled(1, 10_000), settled(2, 100)];
    const messages = replyMessages('b', items, 1000);
    expect(messages.map((message) => parse(message).results.map(([position]) => position))).toEqual([[0], [1], [2]]);
    expect(Buffer.byteLength(messages[1]!)).toBeGreaterThan(1000);
    for (const message of [messages[0]!, messages[2]!]) expect(Buffer.byteLength(message)).toBeLessThanOrEqual(1000);
  });

  it('counts bytes, not characters', () => {
    // 300 characters of three bytes each: over a 512-byte bound in bytes, under it in characters.
    const items = [settled(0, 300, '€'), settled(1, 300, '€')];
    const messages = replyMessages('b', items, 512 + 300);
    expect(messages).toHaveLength(2);
  });

  it('defaults to 512 KiB messages', () => {
    expect(DEFAULT_REPLY_MESSAGE_BYTES).toBe(512 * 1024);
    const items = Array.from({ length: 12 }, (_, n) => settled(n, 100 * 1024));
    const messages = replyMessages('b', items);
    for (const message of messages) expect(Buffer.byteLength(message)).toBeLessThanOrEqual(DEFAULT_REPLY_MESSAGE_BYTES);
    expect(messages.length).toBeGreaterThanOrEqual(3);
  });
});
