import { describe, expect, it } from 'vitest';
import type { EngineRun } from '../../../engine/index.js';
import { createRunRegistry } from '../run-registry.js';

// The engine run is the edge of this unit: a stand-in records what it was told to cancel.
function recordingRun() {
  const cancelled: Array<readonly number[] | undefined> = [];
  const run: EngineRun = { results: Promise.resolve([]), cancel: (positions) => cancelled.push(positions) };
  return { run, cancelled };
}

describe('run registry', () => {
  it('passes a cancellation to the run it names', () => {
    const registry = createRunRegistry();
    const { run, cancelled } = recordingRun();
    registry.register('b1', run);
    registry.cancel({ batchId: 'b1', positions: [2, 5] });
    registry.cancel({ batchId: 'other' });
    expect(cancelled).toEqual([[2, 5]]);
    registry.unregister('b1');
    registry.cancel({ batchId: 'b1' });
    expect(cancelled).toEqual([[2, 5]]);
  });

  it('applies a cancellation that arrived before the job started, merging lists and letting "all" win', () => {
    const registry = createRunRegistry();
    registry.cancel({ batchId: 'early', positions: [1] });
    registry.cancel({ batchId: 'early', positions: [3] });
    const first = recordingRun();
    registry.register('early', first.run);
    expect(first.cancelled).toEqual([[1, 3]]);

    registry.cancel({ batchId: 'whole', positions: [1] });
    registry.cancel({ batchId: 'whole' });
    registry.cancel({ batchId: 'whole', positions: [2] });
    const second = recordingRun();
    registry.register('whole', second.run);
    expect(second.cancelled).toEqual([undefined]);
  });

  it('forgets early cancellations after a while and beyond its bound', () => {
    let now = 0;
    const registry = createRunRegistry({ rememberMs: 1000, maxRemembered: 2, now: () => now });
    registry.cancel({ batchId: 'old' });
    now = 2000;
    registry.cancel({ batchId: 'a' });
    registry.cancel({ batchId: 'b' });
    registry.cancel({ batchId: 'c' });
    const runs = Object.fromEntries(['old', 'a', 'b', 'c'].map((id) => [id, recordingRun()]));
    for (const [id, { run }] of Object.entries(runs)) registry.register(id, run);
    expect(Object.entries(runs).map(([id, { cancelled }]) => [id, cancelled.length])).toEqual([
      ['old', 0],
      ['a', 0],
      ['b', 1],
      ['c', 1],
    ]);
  });
});
