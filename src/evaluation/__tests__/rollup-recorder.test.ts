import { describe, expect, it } from 'vitest';
import type { RollupIncrement, RollupRepository } from '../../rollups/index.js';
import { createRollupRecorder, minuteOf } from '../rollup-recorder.js';

/** Records what the recorder writes; `failFor` makes one tenant's writes fail. */
function recordingRepository(failFor?: string) {
  const writes: Array<{ tenantId: string; increments: RollupIncrement[] }> = [];
  const repository: RollupRepository = {
    async add(tenantId, increments) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (tenantId === failFor) throw new Error('store down');
      writes.push({ tenantId, increments: increments.map((i) => ({ ...i })) });
    },
    range: async () => [],
    scan: async function* () {},
    totals: async () => [],
    tenantsWithBuckets: async () => [],
  };
  return { repository, writes };
}

const sample = (ok: boolean, executionTimeMs: number, policyFunction = 'f') => ({
  policyModule: 'm.x',
  policyFunction,
  version: 2,
  ok,
  executionTimeMs,
});

describe('rollup recorder', () => {
  it('floors instants to their UTC minute', () => {
    expect(minuteOf(new Date('2026-03-04T05:06:59.999Z'))).toBe('2026-03-04T05:06:00.000Z');
    expect(minuteOf(new Date('2026-03-04T05:07:00.000Z'))).toBe('2026-03-04T05:07:00.000Z');
  });

  it('by default writes the samples of one turn of the event loop together, and later ones in a second write', async () => {
    const { repository, writes } = recordingRepository();
    const recorder = createRollupRecorder(repository, { now: () => new Date('2026-03-04T05:06:30Z') });
    await Promise.all([recorder.record('t1', sample(true, 2)), recorder.record('t1', sample(true, 3))]);
    expect(writes.map((w) => w.increments.map((i) => i.count))).toEqual([[2]]);
    await recorder.record('t1', sample(false, 1));
    expect(writes.map((w) => w.increments.map((i) => [i.count, i.failures]))).toEqual([[[2, 0]], [[1, 1]]]);
  });

  it('sums concurrent samples per tenant and bucket into one write', async () => {
    const { repository, writes } = recordingRepository();
    const recorder = createRollupRecorder(repository, { flushIntervalMs: 1, now: () => new Date('2026-03-04T05:06:30Z') });
    await Promise.all([
      recorder.record('t1', sample(true, 2)),
      recorder.record('t1', sample(false, 7)),
      recorder.record('t1', sample(true, 1, 'g')),
      recorder.record('t2', sample(true, 4)),
    ]);
    expect(writes).toEqual([
      {
        tenantId: 't1',
        increments: [
          { policyModule: 'm.x', policyFunction: 'f', version: 2, minute: '2026-03-04T05:06:00.000Z', count: 2, failures: 1, timeSum: 9, max: 7, timeSquares: 53 },
          { policyModule: 'm.x', policyFunction: 'g', version: 2, minute: '2026-03-04T05:06:00.000Z', count: 1, failures: 0, timeSum: 1, max: 1, timeSquares: 1 },
        ],
      },
      {
        tenantId: 't2',
        increments: [{ policyModule: 'm.x', policyFunction: 'f', version: 2, minute: '2026-03-04T05:06:00.000Z', count: 1, failures: 0, timeSum: 4, max: 4, timeSquares: 16 }],
      },
    ]);
  });

  it('gathers samples recorded during a write for the next one, and flush waits for both', async () => {
    const counts: number[] = [];
    let release!: () => void;
    let started!: () => void;
    const firstStarted = new Promise<void>((resolve) => (started = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    const repository: RollupRepository = {
      async add(_tenantId, increments) {
        counts.push(increments[0]!.count);
        if (counts.length === 1) {
          started();
          await gate;
        }
      },
      range: async () => [],
      scan: async function* () {},
      totals: async () => [],
      tenantsWithBuckets: async () => [],
    };
    const recorder = createRollupRecorder(repository, { flushIntervalMs: 0 });
    const first = recorder.record('t', sample(true, 1));
    await firstStarted;
    const later = [recorder.record('t', sample(true, 1)), recorder.record('t', sample(true, 1))];
    const flushed = recorder.flush();
    release();
    await flushed;
    await Promise.all([first, ...later]);
    expect(counts).toEqual([1, 2]);
  });

  it('rejects the samples of a tenant whose write failed, and only those', async () => {
    const { repository, writes } = recordingRepository('bad');
    const recorder = createRollupRecorder(repository, { flushIntervalMs: 1 });
    const results = await Promise.allSettled([recorder.record('bad', sample(true, 1)), recorder.record('good', sample(true, 1))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(writes.map((w) => w.tenantId)).toEqual(['good']);
  });
});
