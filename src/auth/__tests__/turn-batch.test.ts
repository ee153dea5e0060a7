import { describe, expect, it } from 'vitest';
import { createTurnBatch } from '../turn-batch.js';

describe('createTurnBatch', () => {
  it('hands the calls of one turn to one run, in call order, and answers each with its output', async () => {
    const runs: number[][] = [];
    const double = createTurnBatch(async (inputs: number[]) => {
      runs.push(inputs);
      return inputs.map((n) => n * 2);
    });
    const first = await Promise.all([double(1), double(2), double(3)]);
    const second = await double(10);
    expect(first).toEqual([2, 4, 6]);
    expect(second).toBe(20);
    expect(runs).toEqual([[1, 2, 3], [10]]);
  });

  it('rejects every call of the turn when the run fails, and serves later turns', async () => {
    let fail = true;
    const echo = createTurnBatch(async (inputs: string[]) => {
      if (fail) throw new Error('store down');
      return inputs;
    });
    const failed = await Promise.allSettled([echo('a'), echo('b')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(failed.map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(['store down', 'store down']);
    fail = false;
    await expect(echo('c')).resolves.toBe('c');
  });

  it('rejects when a synchronous throw or a wrong number of answers comes back', async () => {
    const throwing = createTurnBatch((): Promise<number[]> => {
      throw new Error('bad input');
    });
    await expect(throwing(1)).rejects.toThrow('bad input');
    const short = createTurnBatch(async (inputs: number[]) => inputs.slice(1));
    const settled = await Promise.allSettled([short(1), short(2)]);
    expect(settled.every((r) => r.status === 'rejected' && /1 answers for 2 calls/.test(String(r.reason)))).toBe(true);
  });
});
