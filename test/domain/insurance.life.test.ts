import { describe, expect, it } from 'vitest';

import { compilePolicy, expectFailure, run, type JsonObject } from './domain-harness.js';

const program = compilePolicy('insurance.life', 'en-US');

/** A 30-year-old with no risk factor at all: score 0. */
function applicant(overrides: JsonObject = {}): JsonObject {
  return { name: 'Ana Silva', age: 30, smoker: false, bmi: 22.0, healthScore: 80, occupationRisk: 'LOW', familyHistory: false, ...overrides };
}

function request(overrides: JsonObject = {}): JsonObject {
  return { coverageAmount: 100_000, termYears: 20, policyType: 'TERM', ...overrides };
}

const riskScore = (a: JsonObject) => run(program, 'calculateLifeRiskScore', [a]);
const quote = (a: JsonObject, r: JsonObject) => run(program, 'generateLifeQuote', [a, r]);

describe('insurance.life.calculateLifeRiskScore', () => {
  it('returns the result fields in schema order', () => {
    expect(Object.keys(riskScore(applicant()) as JsonObject)).toEqual(['score', 'band', 'factors']);
  });

  it.each<[string, JsonObject, number, string, string[]]>([
    ['no risk factor', {}, 0, 'LOW', []],
    ['age 44', { age: 44 }, 0, 'LOW', []],
    ['age 45', { age: 45 }, 10, 'LOW', ['age 45 to 59']],
    ['age 59', { age: 59 }, 10, 'LOW', ['age 45 to 59']],
    ['age 60', { age: 60 }, 25, 'MODERATE', ['age 60 or over']],
    ['smoker', { smoker: true }, 30, 'MODERATE', ['smoker']],
    ['bmi 29.9', { bmi: 29.9 }, 0, 'LOW', []],
    ['bmi 30', { bmi: 30 }, 10, 'LOW', ['bmi 30 to 35']],
    ['bmi 34.9', { bmi: 34.9 }, 10, 'LOW', ['bmi 30 to 35']],
    ['bmi 35', { bmi: 35 }, 20, 'MODERATE', ['bmi 35 or over']],
    ['bmi 18.5', { bmi: 18.5 }, 0, 'LOW', []],
    ['bmi 18.4', { bmi: 18.4 }, 5, 'LOW', ['bmi under 18.5']],
    ['health score 70', { healthScore: 70 }, 0, 'LOW', []],
    ['health score 69', { healthScore: 69 }, 10, 'LOW', ['health score under 70']],
    ['health score 50', { healthScore: 50 }, 10, 'LOW', ['health score under 70']],
    ['health score 49', { healthScore: 49 }, 25, 'MODERATE', ['health score under 50']],
    ['low-risk occupation', { occupationRisk: 'LOW' }, 0, 'LOW', []],
    ['medium-risk occupation', { occupationRisk: 'MEDIUM' }, 8, 'LOW', ['moderate-risk occupation']],
    ['high-risk occupation', { occupationRisk: 'HIGH' }, 20, 'MODERATE', ['high-risk occupation']],
    ['family history', { familyHistory: true }, 10, 'LOW', ['family history']],
  ])('%s', (_name, overrides, score, band, factors) => {
    expect(riskScore(applicant(overrides))).toEqual({ score, band, factors });
  });

  // Band limits: scores move in steps of 5 and 8 loadings, so each limit is tested just below and at it.
  it.each<[string, JsonObject, number, string]>([
    ['18 (10 + 8) is LOW', { age: 45, occupationRisk: 'MEDIUM' }, 18, 'LOW'],
    ['20 (10 + 10) is MODERATE', { age: 45, familyHistory: true }, 20, 'MODERATE'],
    ['38 (30 + 8) is MODERATE', { smoker: true, occupationRisk: 'MEDIUM' }, 38, 'MODERATE'],
    ['40 (30 + 10) is HIGH', { smoker: true, familyHistory: true }, 40, 'HIGH'],
    ['58 (30 + 20 + 8) is HIGH', { smoker: true, bmi: 36, occupationRisk: 'MEDIUM' }, 58, 'HIGH'],
    ['60 (30 + 20 + 10) is VERY_HIGH', { smoker: true, bmi: 36, familyHistory: true }, 60, 'VERY_HIGH'],
  ])('band: %s', (_name, overrides, score, band) => {
    expect(riskScore(applicant(overrides))).toMatchObject({ score, band });
  });

  it('lists every factor in rule order and caps the score at 100 (25 + 30 + 20 + 25 + 20 + 10 = 130)', () => {
    const result = riskScore(applicant({ age: 62, smoker: true, bmi: 36.5, healthScore: 40, occupationRisk: 'HIGH', familyHistory: true }));
    expect(result).toEqual({
      score: 100,
      band: 'VERY_HIGH',
      factors: ['age 60 or over', 'smoker', 'bmi 35 or over', 'health score under 50', 'high-risk occupation', 'family history'],
    });
  });

  it('keeps a score of exactly 100 (25 + 30 + 20 + 25)', () => {
    expect(riskScore(applicant({ age: 60, smoker: true, bmi: 35, healthScore: 10 }))).toEqual({
      score: 100,
      band: 'VERY_HIGH',
      factors: ['age 60 or over', 'smoker', 'bmi 35 or over', 'health score under 50'],
    });
  });

  it.each(['low', 'EXTREME', ''])('rejects occupationRisk %j', (value) => {
    expectFailure(program, 'calculateLifeRiskScore', [applicant({ occupationRisk: value })], '`occupationRisk` must be one of LOW, MEDIUM, HIGH');
  });
});

describe('insurance.life.generateLifeQuote', () => {
  it('returns the result fields in schema order', () => {
    expect(Object.keys(quote(applicant(), request()) as JsonObject)).toEqual(['premium', 'coverageAmount', 'term', 'eligibility', 'exclusions']);
  });

  describe('declines', () => {
    it.each<[string, JsonObject, JsonObject, string[]]>([
      ['age 17', { age: 17 }, {}, ['applicant under 18']],
      ['age 76', { age: 76 }, {}, ['applicant over 75']],
      ['coverage 5000001', {}, { coverageAmount: 5_000_001 }, ['coverage above 5000000']],
      ['term 4', {}, { termYears: 4 }, ['term must be 5 to 40 years']],
      ['term 41', {}, { termYears: 41 }, ['term must be 5 to 40 years']],
      ['everything at once, in rule order', { age: 17 }, { coverageAmount: 6_000_000, termYears: 50 }, ['applicant under 18', 'coverage above 5000000', 'term must be 5 to 40 years']],
      ['over 75 with a short term', { age: 80 }, { termYears: 3 }, ['applicant over 75', 'term must be 5 to 40 years']],
    ])('%s', (_name, a, r, reasons) => {
      const req = request(r);
      expect(quote(applicant(a), req)).toEqual({
        premium: 0,
        coverageAmount: req.coverageAmount,
        term: req.termYears,
        eligibility: 'DECLINED',
        exclusions: reasons,
      });
    });

    it.each<[string, JsonObject, JsonObject]>([
      ['age 18', { age: 18 }, {}],
      ['age 75', { age: 75 }, {}],
      ['coverage 5000000', {}, { coverageAmount: 5_000_000 }],
      ['term 5', {}, { termYears: 5 }],
      ['term 40', {}, { termYears: 40 }],
    ])('accepts %s', (_name, a, r) => {
      expect(quote(applicant(a), request(r))).toMatchObject({ eligibility: 'ELIGIBLE' });
    });
  });

  // annual = coverage / 1000 × rate × (1 + score / 100) × termFactor; premium = round2(annual / 12)
  it.each<[string, JsonObject, JsonObject, number, string, string[]]>([
    // TERM, age 18: rate 0.8; 100 × 0.8 = 80; 80 / 12 = 6.666…
    ['TERM at 18, term 20 (no long-term surcharge)', { age: 18 }, { termYears: 20 }, 6.67, 'ELIGIBLE', []],
    // 80 × 1.15 = 92; 92 / 12 = 7.666…
    ['TERM at 18, term 21 (surcharge 1.15)', { age: 18 }, { termYears: 21 }, 7.67, 'ELIGIBLE', []],
    // WHOLE, age 40: rate 4.0 + 0.12 × 22 = 6.64; 250 × 6.64 = 1660; / 12 = 138.333… (no term surcharge for WHOLE)
    ['WHOLE at 40, term 30', { age: 40 }, { coverageAmount: 250_000, termYears: 30, policyType: 'WHOLE' }, 138.33, 'ELIGIBLE', []],
    // age 50 smoker: score 10 + 30 = 40; rate 0.8 + 0.05 × 32 = 2.4; 500 × 2.4 × 1.4 = 1680; / 12 = 140
    ['TERM at 50, smoker (score 40)', { age: 50, smoker: true }, { coverageAmount: 500_000, termYears: 10 }, 140, 'ELIGIBLE', ['smoking-related illness in first 2 years']],
    // score 30 + 20 + 8 = 58; rate 0.8 + 0.05 × 12 = 1.4; 100 × 1.4 × 1.58 = 221.2; / 12 = 18.4333…
    ['score 58 stays ELIGIBLE', { smoker: true, bmi: 36, occupationRisk: 'MEDIUM' }, { termYears: 10 }, 18.43, 'ELIGIBLE', ['smoking-related illness in first 2 years', 'obesity-related conditions']],
    // score 30 + 20 + 10 = 60; 100 × 1.4 × 1.6 = 224; / 12 = 18.666…
    ['score 60 is REFERRED', { smoker: true, bmi: 36, familyHistory: true }, { termYears: 10 }, 18.67, 'REFERRED', ['smoking-related illness in first 2 years', 'obesity-related conditions']],
    // score 30 + 20 + 20 = 70; 200 × 1.4 × 1.7 × 1.15 = 547.4; / 12 = 45.6166…
    ['all three exclusions in rule order', { smoker: true, bmi: 35, occupationRisk: 'HIGH' }, { coverageAmount: 200_000, termYears: 25 }, 45.62, 'REFERRED', ['smoking-related illness in first 2 years', 'occupational hazards', 'obesity-related conditions']],
    // WHOLE, age 75: rate 4.0 + 0.12 × 57 = 10.84; score 25; 50 × 10.84 × 1.25 = 677.5; / 12 = 56.4583…
    ['WHOLE at 75 (score 25)', { age: 75 }, { coverageAmount: 50_000, termYears: 10, policyType: 'WHOLE' }, 56.46, 'ELIGIBLE', []],
    // 151.875 × 0.8 = 121.5; / 12 = 10.125 exactly: half away from zero gives 10.13 (half-even would give 10.12)
    ['rounds half away from zero', { age: 18 }, { coverageAmount: 151_875, termYears: 10 }, 10.13, 'ELIGIBLE', []],
  ])('%s', (_name, a, r, premium, eligibility, exclusions) => {
    const req = request(r);
    expect(quote(applicant(a), req)).toEqual({ premium, coverageAmount: req.coverageAmount, term: req.termYears, eligibility, exclusions });
  });

  it('lists the high-risk occupation exclusion alone', () => {
    // score 20; rate 1.4; 100 × 1.4 × 1.2 = 168; / 12 = 14
    expect(quote(applicant({ occupationRisk: 'HIGH' }), request({ termYears: 10 }))).toEqual({
      premium: 14,
      coverageAmount: 100_000,
      term: 10,
      eligibility: 'ELIGIBLE',
      exclusions: ['occupational hazards'],
    });
  });

  it('rejects an unknown policyType', () => {
    expectFailure(program, 'generateLifeQuote', [applicant(), request({ policyType: 'UNIVERSAL' })], '`policyType` must be one of TERM, WHOLE');
  });

  it('rejects an unknown occupationRisk before looking at the request', () => {
    expectFailure(program, 'generateLifeQuote', [applicant({ occupationRisk: 'NONE' }), request({ termYears: 99 })], '`occupationRisk` must be one of LOW, MEDIUM, HIGH');
  });

  it('validates enum-like inputs even when the request would be declined', () => {
    expectFailure(program, 'generateLifeQuote', [applicant({ age: 12 }), request({ policyType: 'term' })], '`policyType` must be one of TERM, WHOLE');
  });
});
