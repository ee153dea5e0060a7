import { describe, expect, it } from 'vitest';

import { compilePolicy, expectFailure, run, type JsonObject } from './domain-harness.js';

const program = compilePolicy('lending.personal', 'en-US');

/*
 * Instalments: pay(P) = P × r / (1 − (1 + r)^−n) with r = rate / 1200. Worked out to 6+ decimals:
 *   8.9%,  n 36: r = 0.00741667, (1 + r)^−36 = 0.76642783, annuity factor (1 − v) / r = 31.492877
 *     pay(10000) = 317.532118, pay(20000) = 635.064236, pay(19900) = 631.888915,
 *     pay(15700) = 498.525426, pay(1000) = 31.753212
 *   8.9%,  n 12: (1 + r)^−12 = 0.91514608, pay(10000) = 874.051106
 *   8.9%,  n 84: (1 + r)^−84 = 0.53756743, pay(10000) = 160.383745
 *   8.9%,  n 37: (1 + r)^−37 = 0.76078534, pay(10000) = 310.042309
 *   6.9%,  n 36: r = 0.00575,    (1 + r)^−36 = 0.81350179, pay(10000) = 308.313958
 *   9.4%,  n 36: r = 0.00783333, (1 + r)^−36 = 0.75510291, pay(10000) = 319.862246
 *   9.9%,  n 36: r = 0.00825,    (1 + r)^−36 = 0.74394991, pay(10000) = 322.202581
 *   10.9%, n 36: r = 0.00908333, (1 + r)^−36 = 0.72214899, pay(10000) = 326.913811
 *   11.4%, n 36: r = 0.0095,     (1 + r)^−36 = 0.71149583, pay(10000) = 329.284674
 *   11.9%, n 36: r = 0.00991667, (1 + r)^−36 = 0.70100414, pay(10000) = 331.665681
 *   15.9%, n 36: r = 0.01325,    (1 + r)^−36 = 0.62258973, pay(10000) = 351.076828
 *   17.9%, n 36: r = 0.01491667, (1 + r)^−36 = 0.58682169, pay(10000) = 361.022504
 */

function personal(overrides: JsonObject = {}): JsonObject {
  return { name: 'Sam Lee', age: 35, employmentYears: 5, dependents: 1, ...overrides };
}

/** 5000 a month. */
function income(overrides: JsonObject = {}): JsonObject {
  return { annualIncome: 60_000, employmentType: 'PERMANENT', ...overrides };
}

/** Score 720: rate 8.9. */
function credit(overrides: JsonObject = {}): JsonObject {
  return { creditScore: 720, latePayments: 0, defaults: 0, ...overrides };
}

function debt(overrides: JsonObject = {}): JsonObject {
  return { totalMonthlyDebt: 500, ...overrides };
}

function request(overrides: JsonObject = {}): JsonObject {
  return { requestedAmount: 10_000, requestedTermMonths: 36, purpose: 'CAR', ...overrides };
}

interface Inputs {
  pe?: JsonObject;
  i?: JsonObject;
  c?: JsonObject;
  d?: JsonObject;
  r?: JsonObject;
}

const evaluateLoan = ({ pe = {}, i = {}, c = {}, d = {}, r = {} }: Inputs) =>
  run(program, 'evaluatePersonalLoan', [personal(pe), income(i), credit(c), debt(d), request(r)]) as JsonObject;

const eligible = (approvedAmount: number, interestRate: number, monthlyRepayment: number, term: number, conditions: string[] = []) => ({
  eligible: true,
  approvedAmount,
  interestRate,
  monthlyRepayment,
  term,
  conditions,
  rejectionReasons: [],
});

const rejected = (term: number, rejectionReasons: string[]) => ({
  eligible: false,
  approvedAmount: 0,
  interestRate: 0,
  monthlyRepayment: 0,
  term,
  conditions: [],
  rejectionReasons,
});

const REDUCED = 'amount reduced to keep debt-to-income at 50%';

describe('lending.personal.evaluatePersonalLoan', () => {
  it('approves a sound application in full', () => {
    // (500 + 317.53) / 5000 ≈ 0.16, well within half of income
    const result = evaluateLoan({});
    expect(result).toEqual(eligible(10_000, 8.9, 317.53, 36));
    expect(Object.keys(result)).toEqual(['eligible', 'approvedAmount', 'interestRate', 'monthlyRepayment', 'term', 'conditions', 'rejectionReasons']);
  });

  describe('rejection reasons', () => {
    it.each<[string, Inputs, string[]]>([
      ['age 17', { pe: { age: 17 } }, ['applicant under 18']],
      // 77 + 37 / 12 ≈ 80.08
      ['age 77 with 37 months', { pe: { age: 77 }, r: { requestedTermMonths: 37 } }, ['loan would run past age 80']],
      ['age 78 with 36 months', { pe: { age: 78 } }, ['loan would run past age 80']],
      ['unemployed', { i: { employmentType: 'UNEMPLOYED' } }, ['no employment income']],
      ['credit score 579', { c: { creditScore: 579 } }, ['credit score below 580']],
      ['a default', { c: { defaults: 1 } }, ['default on record']],
      ['term 11', { r: { requestedTermMonths: 11 } }, ['term must be 12 to 84 months']],
      ['term 85', { r: { requestedTermMonths: 85 } }, ['term must be 12 to 84 months']],
      [
        // 79 + 120 / 12 = 89
        'all past 80, in rule order',
        { pe: { age: 79 }, i: { employmentType: 'UNEMPLOYED' }, c: { creditScore: 500, defaults: 2 }, r: { requestedTermMonths: 120 } },
        ['loan would run past age 80', 'no employment income', 'credit score below 580', 'default on record', 'term must be 12 to 84 months'],
      ],
      ['under 18 and unemployed', { pe: { age: 17 }, i: { employmentType: 'UNEMPLOYED', annualIncome: 0 } }, ['applicant under 18', 'no employment income']],
    ])('%s', (_name, inputs, reasons) => {
      const term = (request(inputs.r).requestedTermMonths as number);
      expect(evaluateLoan(inputs)).toEqual(rejected(term, reasons));
    });

    it.each<[string, Inputs, JsonObject]>([
      ['age 18', { pe: { age: 18 } }, eligible(10_000, 8.9, 317.53, 36)],
      // 77 + 36 / 12 = 80, not above
      ['age 77 with 36 months', { pe: { age: 77 } }, eligible(10_000, 8.9, 317.53, 36)],
      ['credit score 580', { c: { creditScore: 580 } }, eligible(10_000, 15.9, 351.08, 36)],
      ['term 12', { r: { requestedTermMonths: 12 } }, eligible(10_000, 8.9, 874.05, 12)],
      ['term 84', { r: { requestedTermMonths: 84 } }, eligible(10_000, 8.9, 160.38, 84)],
      ['term 37', { r: { requestedTermMonths: 37 } }, eligible(10_000, 8.9, 310.04, 37)],
    ])('eligible at %s', (_name, inputs, expected) => {
      expect(evaluateLoan(inputs)).toEqual(expected);
    });
  });

  describe('interest rate', () => {
    it.each<[string, Inputs, number, number]>([
      ['score 760', { c: { creditScore: 760 } }, 6.9, 308.31],
      ['score 759', { c: { creditScore: 759 } }, 8.9, 317.53],
      ['score 700', { c: { creditScore: 700 } }, 8.9, 317.53],
      ['score 699', { c: { creditScore: 699 } }, 11.9, 331.67],
      ['score 640', { c: { creditScore: 640 } }, 11.9, 331.67],
      ['score 639', { c: { creditScore: 639 } }, 15.9, 351.08],
      ['a contract adds 1', { i: { employmentType: 'CONTRACT' } }, 9.9, 322.2],
      ['self-employment adds 1', { i: { employmentType: 'SELF_EMPLOYED' } }, 9.9, 322.2],
      ['a late payment adds 0.5', { c: { latePayments: 1 } }, 9.4, 319.86],
      ['4 late payments add 2', { c: { latePayments: 4 } }, 10.9, 326.91],
      ['late payments add at most 2', { c: { latePayments: 6 } }, 10.9, 326.91],
      // 8.9 + 1.0 + 1.5
      ['self-employed with 3 late payments', { i: { employmentType: 'SELF_EMPLOYED' }, c: { latePayments: 3 } }, 11.4, 329.28],
      // 15.9 + 2.0
      ['score 600 with 5 late payments', { c: { creditScore: 600, latePayments: 5 } }, 17.9, 361.02],
    ])('%s', (_name, inputs, interestRate, monthlyRepayment) => {
      expect(evaluateLoan(inputs)).toEqual(eligible(10_000, interestRate, monthlyRepayment, 36));
    });
  });

  describe('debt-to-income', () => {
    // 3000 a month, 20000 over 36 months at 8.9%: instalment 635.064236
    const tight = (totalMonthlyDebt: number, extra: Inputs = {}): Inputs => ({
      i: { annualIncome: 36_000 },
      d: { totalMonthlyDebt },
      r: { requestedAmount: 20_000 },
      ...extra,
    });

    it.each<[string, Inputs, JsonObject]>([
      // (864 + 635.064236) / 3000 = 0.49969
      ['just within half of income', tight(864), eligible(20_000, 8.9, 635.06, 36)],
      // (865 + 635.06) / 3000 = 0.50002: (1500 − 865) × 31.492877 = 19997.98 → 19900
      ['just above half of income', tight(865), eligible(19_900, 8.9, 631.89, 36, [REDUCED])],
      // (1500 − 1000) × 31.492877 = 15746.44 → 15700
      ['reduced to the largest hundreds that fit', tight(1000), eligible(15_700, 8.9, 498.53, 36, [REDUCED])],
      // (1500 − 1468) × 31.492877 = 1007.77 → 1000, the smallest loan given
      ['reduced to exactly 1000', tight(1468), eligible(1000, 8.9, 31.75, 36, [REDUCED])],
      // (1500 − 1469) × 31.492877 = 976.28 → 900
      ['too little room left', tight(1469), rejected(36, ['debt-to-income too high'])],
      // 1800 a month already exceeds half of income
      ['debts above half of income', tight(1800), rejected(36, ['debt-to-income too high'])],
      ['no income at all', { i: { annualIncome: 0, employmentType: 'SELF_EMPLOYED' }, d: { totalMonthlyDebt: 0 } }, rejected(36, ['debt-to-income too high'])],
    ])('%s', (_name, inputs, expected) => {
      expect(evaluateLoan(inputs)).toEqual(expected);
    });

    it('lists every condition in rule order', () => {
      expect(evaluateLoan(tight(1000, { pe: { dependents: 4 }, r: { requestedAmount: 20_000, purpose: 'DEBT_CONSOLIDATION' } }))).toEqual(
        eligible(15_700, 8.9, 498.53, 36, [REDUCED, 'budget review', 'existing debts paid directly to creditors']),
      );
    });
  });

  describe('conditions', () => {
    it.each<[string, Inputs, string[]]>([
      ['2 dependents', { pe: { dependents: 2 } }, []],
      ['3 dependents', { pe: { dependents: 3 } }, ['budget review']],
      ['debt consolidation', { r: { purpose: 'DEBT_CONSOLIDATION' } }, ['existing debts paid directly to creditors']],
      ['both, in rule order', { pe: { dependents: 3 }, r: { purpose: 'DEBT_CONSOLIDATION' } }, ['budget review', 'existing debts paid directly to creditors']],
    ])('%s', (_name, inputs, conditions) => {
      expect(evaluateLoan(inputs)).toEqual(eligible(10_000, 8.9, 317.53, 36, conditions));
    });
  });

  it.each(['STUDENT', 'permanent', ''])('rejects employmentType %j', (employmentType) => {
    expectFailure(
      program,
      'evaluatePersonalLoan',
      [personal(), income({ employmentType }), credit(), debt(), request()],
      '`employmentType` must be one of PERMANENT, CONTRACT, SELF_EMPLOYED, UNEMPLOYED',
    );
  });
});
