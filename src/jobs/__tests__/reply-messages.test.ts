import { describe, expect, it } from 'vitest';
import type { SerializedItemResult } from '../../engine/index.js';
import type { PolicyEvaluateReply } from '../policy-evaluate-job.js';
import { DEFAULT_REPLY_MESSAGE_BYTES, replyMessages } from '../reply-messages.js';

/** A result whose JSON text is exactly `bytes` long. */
function result(n: number, bytes: number): SerializedItemResult {
  const json = JSON.stringify({ kind: 'evaluated', ok: true, value: '', n });
  const padded = JSON.stringify({ kind: 'evaluated', ok: true, value: 'x'.repeat(Math.max(0, bytes - json.length)), n });
  return { ok: true, json: padded };
}

type Results = Extract<PolicyEvaluateReply, { results: unknown }>;
const parse = (message: string) => JSON.parse(message) as Results;

/** The results carried by the messages, in order, each checked against its `from`. */
function reassemble(messages: string[], total: number): unknown[] {
  const results = new Array<unknown>(total);
  let next = 0;
  for (const message of messages) {
    const reply = parse(message);
    expect(reply.from).toBe(next);
    reply.results.forEach((value, offset) => (results[reply.from + offset] = value));
    next += reply.results.length;
  }
  expect(next).toBe(total);
  return results;
}

describe('replyMessages', () => {
  it('puts a small batch in one message', () => {
    const results = [result(0, 100), result(1, 100)];
    const messages = replyMessages('b-1', results);
    expect(messages).toHaveLength(1);
    expect(parse(messages[0]!)).toEqual({ batchId: 'b-1', from: 0, results: results.map((r) => JSON.parse(r.json)) });
  });

  it('answers an empty batch with one empty message', () => {
    expect(replyMessages('b-1', []).map(parse)).toEqual([{ batchId: 'b-1', from: 0, results: [] }]);
  });

  it('never exceeds the bound, keeps order and says where each run starts', () => {
    const maxBytes = 4096;
    for (const sizes of [
      Array.from({ length: 100 }, (_, i) => 100 + ((i * 37) % 900)),
      Array.from({ length: 40 }, () => 1000),
      Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 4000 : 50)),
    ]) {
      const results = sizes.map((bytes, n) => result(n, bytes));
      const messages = replyMessages('batch-with-a-long-id-0123456789', results, maxBytes);
      expect(messages.length).toBeGreaterThan(1);
      for (const message of messages) expect(Buffer.byteLength(message)).toBeLessThanOrEqual(maxBytes);
      expect(reassemble(messages, results.length)).toEqual(results.map((r) => JSON.parse(r.json)));
    }
  });

  it('sends a single result larger than the bound alone, and only it exceeds the bound', () => {
    const results = [result(0, 200), result(1, 300), result(2, 5000), result(3, 200), result(4, 200)];
    const messages = replyMessages('b', results, 1024);
    const carried = messages.map((m) => parse(m).results.map((r) => (r as unknown as { n: number }).n));
    expect(carried).toEqual([[0, 1], [2], [3, 4]]);
    messages.forEach((message, index) => {
      if (index === 1) expect(Buffer.byteLength(message)).toBeGreaterThan(1024);
      else expect(Buffer.byteLength(message)).toBeLessThanOrEqual(1024);
    });
    expect(reassemble(messages, results.length)).toEqual(results.map((r) => JSON.parse(r.json)));
  });

  it('counts bytes, not characters', () => {
    const wide = (n: number): SerializedItemResult => ({ ok: true, json: JSON.stringify({ n, value: '€'.repeat(300) }) });
    const messages = replyMessages('b', Array.from({ length: 20 }, (_, n) => wide(n)), 2048);
    for (const message of messages) expect(Buffer.byteLength(message)).toBeLessThanOrEqual(2048);
    expect(reassemble(messages, 20)).toHaveLength(20);
  });

  it('defaults to 512 KiB messages', () => {
    expect(DEFAULT_REPLY_MESSAGE_BYTES).toBe(512 * 1024);
    const results = Array.from({ length: 8 }, (_, n) => result(n, 100 * 1024));
    expect(replyMessages('b', results).map((m) => parse(m).results.length)).toEqual([5, 3]);
  });
});
