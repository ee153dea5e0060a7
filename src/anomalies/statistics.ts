import jStat from 'jstat';

/** z for a two-sided 95 % interval. */
export const Z_95 = 1.959963984540054;

/**
 * The Wilson score interval of a proportion. Unlike the raw rate ± a margin it stays honest for
 * small samples and for rates near 0 or 1 (3 of 10 → 0.108 to 0.603 at 95 %).
 */
export function wilsonInterval(successes: number, trials: number, z: number = Z_95): { lower: number; upper: number } {
  if (trials <= 0) return { lower: 0, upper: 1 };
  const p = successes / trials;
  const z2 = z * z;
  const centre = p + z2 / (2 * trials);
  const margin = z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  const scale = 1 + z2 / trials;
  return { lower: Math.max(0, (centre - margin) / scale), upper: Math.min(1, (centre + margin) / scale) };
}

/** The rate we can be confident lies below the true one: it stays low for small samples. */
export function wilsonLowerBound(successes: number, trials: number, z: number = Z_95): number {
  return wilsonInterval(successes, trials, z).lower;
}

/** The sums a rollup keeps of a sample: n, Σx and Σx². */
export interface SampleMoments {
  count: number;
  sum: number;
  squares: number;
}

/** Mean and unbiased variance from the sums (variance 0 below two samples; never negative from rounding). */
export function sampleMeanAndVariance(m: SampleMoments): { mean: number; variance: number } {
  if (m.count <= 0) return { mean: 0, variance: 0 };
  const mean = m.sum / m.count;
  if (m.count < 2) return { mean, variance: 0 };
  const variance = (m.squares - m.count * mean * mean) / (m.count - 1);
  return { mean, variance: Math.max(0, variance) };
}

export interface WelchTest {
  t: number;
  /** Welch–Satterthwaite degrees of freedom; 0 when the test could not be made. */
  df: number;
  /** One-sided: the chance of a window mean this far above the baseline's if they were equal. */
  pValue: number;
}

/**
 * One-sided Welch t-test of "the window's mean is above the baseline's", for samples with unequal
 * variances. Fewer than two samples on a side cannot be tested (p = 1). With no spread on either
 * side, any rise is certain (p = 0) and no rise is none (p = 1).
 */
export function welchOneSided(window: SampleMoments, baseline: SampleMoments): WelchTest {
  if (window.count < 2 || baseline.count < 2) return { t: 0, df: 0, pValue: 1 };
  const w = sampleMeanAndVariance(window);
  const b = sampleMeanAndVariance(baseline);
  const aw = w.variance / window.count;
  const ab = b.variance / baseline.count;
  const se = Math.sqrt(aw + ab);
  const difference = w.mean - b.mean;
  if (se === 0) return { t: 0, df: 0, pValue: difference > 0 ? 0 : 1 };
  const t = difference / se;
  const df = (aw + ab) ** 2 / ((aw * aw) / (window.count - 1) + (ab * ab) / (baseline.count - 1));
  return { t, df, pValue: 1 - jStat.studentt.cdf(t, df) };
}
