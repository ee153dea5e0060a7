import { describe, expect, it } from 'vitest';
import { sampleMeanAndVariance, welchOneSided, wilsonLowerBound, type SampleMoments } from '../statistics.js';

/** The sums a rollup would hold for n samples of this mean and (sample) standard deviation. */
function moments(count: number, mean: number, sd: number): SampleMoments {
  return { count, sum: count * mean, squares: (count - 1) * sd * sd + count * mean * mean };
}

describe('wilsonLowerBound', () => {
  it('matches the textbook interval', () => {
    expect(wilsonLowerBound(3, 10)).toBeCloseTo(0.1078, 4);
    expect(wilsonLowerBound(15, 50)).toBeCloseTo(0.191, 3);
    expect(wilsonLowerBound(30, 100)).toBeCloseTo(0.2189, 3);
  });

  it('is 0 without trials or failures and below 1 for all failures', () => {
    expect(wilsonLowerBound(0, 0)).toBe(0);
    expect(wilsonLowerBound(0, 500)).toBeCloseTo(0, 15);
    expect(wilsonLowerBound(20, 20)).toBeCloseTo(0.8389, 4);
  });
});

describe('sampleMeanAndVariance', () => {
  it('recovers the mean and the unbiased variance from the sums', () => {
    const { mean, variance } = sampleMeanAndVariance({ count: 4, sum: 2 + 4 + 4 + 6, squares: 4 + 16 + 16 + 36 });
    expect(mean).toBe(4);
    expect(variance).toBeCloseTo(8 / 3, 12);
  });

  it('never goes negative from rounding and has no spread below two samples', () => {
    expect(sampleMeanAndVariance({ count: 3, sum: 3, squares: 3 - 1e-12 }).variance).toBe(0);
    expect(sampleMeanAndVariance({ count: 1, sum: 5, squares: 25 })).toEqual({ mean: 5, variance: 0 });
    expect(sampleMeanAndVariance({ count: 0, sum: 0, squares: 0 })).toEqual({ mean: 0, variance: 0 });
  });
});

describe('welchOneSided', () => {
  it('gives Welch’s t, the Welch–Satterthwaite degrees of freedom and the upper-tail p', () => {
    // n 10, mean 20, sd 2 against n 12, mean 18, sd 3: t = 1.865, df = 19.19; t(19) puts p between 0.025 and 0.05.
    const test = welchOneSided(moments(10, 20, 2), moments(12, 18, 3));
    expect(test.t).toBeCloseTo(1.865, 3);
    expect(test.df).toBeCloseTo(19.19, 2);
    expect(test.pValue).toBeCloseTo(0.0388, 3);
  });

  it('is one-sided: a faster window is not significant', () => {
    expect(welchOneSided(moments(50, 1, 0.1), moments(50, 2, 0.1)).pValue).toBeGreaterThan(0.99);
  });

  it('settles the degenerate cases without dividing by zero', () => {
    expect(welchOneSided(moments(1, 9, 0), moments(50, 1, 0.1))).toEqual({ t: 0, df: 0, pValue: 1 });
    expect(welchOneSided(moments(60, 2, 0), moments(60, 1, 0)).pValue).toBe(0);
    expect(welchOneSided(moments(60, 1, 0), moments(60, 1, 0)).pValue).toBe(1);
  });
});
