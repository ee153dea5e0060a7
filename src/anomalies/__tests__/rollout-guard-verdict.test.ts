import { describe, expect, it } from 'vitest';
import { canaryVerdict, GUARD_MIN_SLOWDOWN_MS } from '../rollout-guard.js';

const settings = { minSamples: 50, slowdownFactor: 1.5 };

/** A side of `count` evaluations, `failures` of them failed, each taking `mean` ms give or take `spread`. */
function side(count: number, failures: number, mean = 0.05, spread = 0.01) {
  // Half at mean − spread, half at mean + spread: the sums a rollup keeps.
  const low = mean - spread;
  const high = mean + spread;
  const half = Math.floor(count / 2);
  return {
    count,
    failures,
    time: { count, sum: half * low + (count - half) * high, squares: half * low * low + (count - half) * high * high },
  };
}

describe('canaryVerdict', () => {
  it('aborts a canary whose failure rate is surely above the stable one\'s', () => {
    expect(canaryVerdict(side(60, 18), side(540, 0), settings)).toMatch(/^failure rate 30\.0 % of 60 evaluations, against 0\.0 % of 540/);
    expect(canaryVerdict(side(1000, 150), side(1000, 50), settings)).toMatch(/failure rate 15\.0 %/);
  });

  it('stays quiet below the minimum samples on either side, and for rates that could be equal', () => {
    expect(canaryVerdict(side(49, 49), side(500, 0), settings)).toBeNull();
    expect(canaryVerdict(side(500, 250), side(49, 0), settings)).toBeNull();
    expect(canaryVerdict(side(100, 8), side(900, 45), settings)).toBeNull();
    expect(canaryVerdict(side(5000, 260), side(5000, 240), settings)).toBeNull();
  });

  it('aborts a canary surely slower by the slowdown factor and the minimum difference, never a small or uncertain slowdown', () => {
    expect(canaryVerdict(side(200, 0, 4, 0.5), side(200, 0, 1, 0.2), settings)).toMatch(/^mean time 4\.00 ms over 200 evaluations, against 1\.00 ms/);
    // 3× slower but less than GUARD_MIN_SLOWDOWN_MS apart (warm-up compiles cause as much).
    expect(canaryVerdict(side(5000, 0, 0.3, 0.01), side(5000, 0, 0.1, 0.01), settings)).toBeNull();
    expect(GUARD_MIN_SLOWDOWN_MS).toBe(1);
    // Surely slower, but only 1.2×: below the factor.
    expect(canaryVerdict(side(5000, 0, 12, 0.1), side(5000, 0, 10, 0.1), settings)).toBeNull();
    // 3× slower on average, but spread too wide to be sure.
    expect(canaryVerdict(side(60, 0, 6, 20), side(60, 0, 2, 0.1), settings)).toBeNull();
  });
});
