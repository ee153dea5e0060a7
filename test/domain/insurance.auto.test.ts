import { describe, expect, it } from 'vitest';

import { compilePolicy, expectFailure, run, type JsonObject } from './domain-harness.js';

const program = compilePolicy('insurance.auto', 'en-US');

/** Risk multiplier 1.0: age 40, experienced, clean record, average credit. */
function driver(overrides: JsonObject = {}): JsonObject {
  return { age: 40, yearsLicensed: 20, accidents: 0, violations: 0, creditScore: 700, ...overrides };
}

/** Collision 20000 × 0.03 = 600, comprehensive 20000 × 0.01 = 200. */
function vehicle(overrides: JsonObject = {}): JsonObject {
  return { ageYears: 5, value: 20_000, safetyRating: 3, usage: 'PERSONAL', ...overrides };
}

const autoQuote = (d: JsonObject, v: JsonObject, coverageType: string) => run(program, 'generateAutoQuote', [d, v, coverageType]) as JsonObject;

function options(coverageType: string, liability: number, collision: number, comprehensive: number) {
  return [
    { type: 'LIABILITY', included: true, premium: liability },
    { type: 'COLLISION', included: coverageType !== 'LIABILITY', premium: collision },
    { type: 'COMPREHENSIVE', included: coverageType === 'COMPREHENSIVE', premium: comprehensive },
  ];
}

describe('insurance.auto.generateAutoQuote', () => {
  it('returns the result fields in schema order', () => {
    const result = autoQuote(driver(), vehicle(), 'LIABILITY');
    expect(Object.keys(result)).toEqual(['annualPremium', 'monthlyPremium', 'coverageOptions']);
    expect(Object.keys((result.coverageOptions as JsonObject[])[0]!)).toEqual(['type', 'included', 'premium']);
  });

  it.each<[string, number, number]>([
    ['LIABILITY', 600, 50],
    ['STANDARD', 1200, 100],
    // 600 + 600 + 200 = 1400; / 12 = 116.666…
    ['COMPREHENSIVE', 1400, 116.67],
  ])('coverage %s includes its options, in order, and charges only those', (coverageType, annualPremium, monthlyPremium) => {
    expect(autoQuote(driver(), vehicle(), coverageType)).toEqual({
      annualPremium,
      monthlyPremium,
      coverageOptions: options(coverageType, 600, 600, 200),
    });
  });

  // Liability cover only: annual = 600 × risk, monthly = annual / 12.
  it.each<[string, JsonObject, JsonObject, number, number]>([
    ['age 16 (1.6)', { age: 16 }, {}, 960, 80],
    ['age 24 (1.6)', { age: 24 }, {}, 960, 80],
    ['age 25 (1.25)', { age: 25 }, {}, 750, 62.5],
    ['age 29 (1.25)', { age: 29 }, {}, 750, 62.5],
    ['age 30 (1.0)', { age: 30 }, {}, 600, 50],
    ['age 69 (1.0)', { age: 69 }, {}, 600, 50],
    ['age 70 (1.3)', { age: 70 }, {}, 780, 65],
    ['licensed 2 years (1.2)', { yearsLicensed: 2 }, {}, 720, 60],
    ['licensed 3 years', { yearsLicensed: 3 }, {}, 600, 50],
    ['2 accidents (1 + 0.5)', { accidents: 2 }, {}, 900, 75],
    ['3 violations (1 + 0.3)', { violations: 3 }, {}, 780, 65],
    ['credit 599 (1.15)', { creditScore: 599 }, {}, 690, 57.5],
    ['credit 600', { creditScore: 600 }, {}, 600, 50],
    ['credit 749', { creditScore: 749 }, {}, 600, 50],
    ['credit 750 (0.9)', { creditScore: 750 }, {}, 540, 45],
    ['commuting (1.1)', {}, { usage: 'COMMUTE' }, 660, 55],
    ['business use (1.25)', {}, { usage: 'BUSINESS' }, 750, 62.5],
  ])('risk: %s', (_name, d, v, annualPremium, monthlyPremium) => {
    const result = autoQuote(driver(d), vehicle(v), 'LIABILITY');
    expect(result).toMatchObject({ annualPremium, monthlyPremium });
    expect((result.coverageOptions as JsonObject[])[0]).toEqual({ type: 'LIABILITY', included: true, premium: annualPremium });
  });

  // Standard cover: annual = 600 liability + collision.
  it.each<[string, JsonObject, JsonObject, number, number, number]>([
    ['safety rating 5 (0.85)', {}, { safetyRating: 5 }, 510, 1110, 92.5],
    ['safety rating 4 (0.95)', {}, { safetyRating: 4 }, 570, 1170, 97.5],
    ['safety rating 3', {}, { safetyRating: 3 }, 600, 1200, 100],
    ['vehicle 10 years old', {}, { ageYears: 10 }, 600, 1200, 100],
    ['vehicle 11 years old (1.1)', {}, { ageYears: 11 }, 660, 1260, 105],
  ])('collision: %s', (_name, d, v, collision, annualPremium, monthlyPremium) => {
    expect(autoQuote(driver(d), vehicle(v), 'STANDARD')).toEqual({
      annualPremium,
      monthlyPremium,
      coverageOptions: options('STANDARD', 600, collision, 200),
    });
  });

  it('loads an accident onto both liability and collision', () => {
    // liability 600 × 1.25 = 750; collision 600 × 1.25 = 750; 1500 / 12 = 125
    expect(autoQuote(driver({ accidents: 1 }), vehicle(), 'STANDARD')).toEqual({
      annualPremium: 1500,
      monthlyPremium: 125,
      coverageOptions: options('STANDARD', 750, 750, 200),
    });
  });

  it('multiplies every factor and rounds each premium', () => {
    // risk = 1.6 × 1.2 × 1.25 × 1.2 × 1.15 × 1.1 = 3.6432; liability = 600 × 3.6432 = 2185.92
    // collision = 23457 × 0.03 × 1.25 × 0.95 × 1.1 = 919.2211875 → 919.22; comprehensive = 234.57
    // annual = 2185.92 + 919.22 + 234.57 = 3339.71; monthly = 278.309… → 278.31
    const d = driver({ age: 22, yearsLicensed: 2, accidents: 1, violations: 2, creditScore: 580 });
    const v = vehicle({ usage: 'COMMUTE', value: 23_457, ageYears: 12, safetyRating: 4 });
    expect(autoQuote(d, v, 'COMPREHENSIVE')).toEqual({
      annualPremium: 3339.71,
      monthlyPremium: 278.31,
      coverageOptions: options('COMPREHENSIVE', 2185.92, 919.22, 234.57),
    });
  });

  it('rounds a liability premium with more than two decimals', () => {
    // risk = 1.3 × 1.2 × 1.25 × 1.1 × 1.15 × 1.25 = 3.0834375; 600 × risk = 1850.0625 → 1850.06
    // collision = 20000 × 0.03 × 1.25 = 750; monthly = 1850.06 / 12 = 154.171… → 154.17
    const d = driver({ age: 70, yearsLicensed: 1, accidents: 1, violations: 1, creditScore: 590 });
    expect(autoQuote(d, vehicle({ usage: 'BUSINESS' }), 'LIABILITY')).toEqual({
      annualPremium: 1850.06,
      monthlyPremium: 154.17,
      coverageOptions: options('LIABILITY', 1850.06, 750, 200),
    });
  });

  it('sums the rounded premiums, not the exact ones', () => {
    // risk = 1.6 × 1.2 × 1.1 × 1.15 × 1.1 = 2.67168; liability = 1603.008 → 1603.01
    // collision = 10001 × 0.03 × 0.85 = 255.0255 → 255.03; comprehensive = 100.01
    // annual = 1603.01 + 255.03 = 1858.04 (the exact sum 1858.0335 would round to 1858.03)
    // monthly = 1858.04 / 12 = 154.836… → 154.84
    const d = driver({ age: 16, yearsLicensed: 1, violations: 1, creditScore: 590 });
    const v = vehicle({ usage: 'COMMUTE', value: 10_001, safetyRating: 5, ageYears: 3 });
    expect(autoQuote(d, v, 'STANDARD')).toEqual({
      annualPremium: 1858.04,
      monthlyPremium: 154.84,
      coverageOptions: options('STANDARD', 1603.01, 255.03, 100.01),
    });
  });

  it('refuses a driver under 16', () => {
    expectFailure(program, 'generateAutoQuote', [driver({ age: 15 }), vehicle(), 'LIABILITY'], 'driver must be at least 16');
  });

  it.each(['FLEET', 'personal', ''])('rejects usage %j', (usage) => {
    expectFailure(program, 'generateAutoQuote', [driver(), vehicle({ usage }), 'LIABILITY'], '`usage` must be one of PERSONAL, COMMUTE, BUSINESS');
  });

  it.each(['FULL', 'standard', 'COLLISION'])('rejects coverageType %j', (coverageType) => {
    expectFailure(program, 'generateAutoQuote', [driver(), vehicle(), coverageType], '`coverageType` must be one of LIABILITY, STANDARD, COMPREHENSIVE');
  });

  it('validates enum-like inputs before the driver age', () => {
    expectFailure(program, 'generateAutoQuote', [driver({ age: 15 }), vehicle({ usage: 'FLEET' }), 'LIABILITY'], '`usage` must be one of PERSONAL, COMMUTE, BUSINESS');
  });
});
