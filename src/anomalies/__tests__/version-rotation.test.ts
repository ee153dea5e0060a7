import { describe, expect, it } from 'vitest';
import type { RollupVersionKey } from '../../rollups/index.js';
import { pickInRotation } from '../version-rotation.js';

const turn = async () => {};
const key = (v: { policyModule: string; policyFunction: string; version: number }) => `${v.policyModule}/${v.policyFunction}@${v.version}`;

/** 3 modules × 4 functions × 500 versions (more than one sorting slice), shuffled. */
function versions() {
  const all = [];
  for (const policyModule of ['a', 'a.b', 'b']) for (const policyFunction of ['f', 'g', 'h', 'i']) for (let version = 0; version < 500; version += 1) all.push({ policyModule, policyFunction, version });
  for (let i = all.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all;
}

describe('pickInRotation', () => {
  it('picks the first versions by module, function and version number', async () => {
    const picked = await pickInRotation(versions(), null, 12, turn);
    expect(picked.map(key)).toEqual(Array.from({ length: 12 }, (_, v) => `a/f@${v}`));
  });

  it('goes on after a version, round the end to the first ones', async () => {
    const picked = await pickInRotation(versions(), { policyModule: 'b', policyFunction: 'i', version: 497 }, 5, turn);
    expect(picked.map(key)).toEqual(['b/i@498', 'b/i@499', 'a/f@0', 'a/f@1', 'a/f@2']);
    // A start that is no longer among the versions (it left the window) still has its place.
    const gone = await pickInRotation(versions(), { policyModule: 'a', policyFunction: 'g2', version: 3 }, 2, turn);
    expect(gone.map(key)).toEqual(['a/h@0', 'a/h@1']);
  });

  it('visits every version once in as many rounds as the budget takes to go round', async () => {
    const all = versions();
    const seen = new Map<string, number>();
    let after: RollupVersionKey | null = null;
    for (let round = 0; round < all.length / 600; round += 1) {
      const picked: RollupVersionKey[] = await pickInRotation(all, after, 600, turn);
      for (const v of picked) seen.set(key(v), (seen.get(key(v)) ?? 0) + 1);
      after = picked.at(-1)!;
    }
    expect(seen.size).toBe(all.length);
    expect(Math.max(...seen.values())).toBe(1);
  });
});
