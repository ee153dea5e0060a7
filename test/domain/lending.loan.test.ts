import { describe, expect, it } from 'vitest';

import { compilePolicy, run, type JsonObject } from './domain-harness.js';

const program = compilePolicy('lending.loan', 'en-US');

function application(overrides: JsonObject = {}): JsonObject {
  return { requestedAmount: 20_000, termMonths: 36, purpose: 'CAR', ...overrides };
}

/** Monthly income 5000, debt 1000: debt-to-income 0.2; score 720 (rate 7.0, cap 60% of income). */
function applicant(overrides: JsonObject = {}): JsonObject {
  return { age: 35, annualIncome: 60_000, creditScore: 720, monthlyDebt: 1000, yearsEmployed: 5, ...overrides };
}

const evaluateLoan = (app: JsonObject, person: JsonObject) => run(program, 'evaluateLoanEligibility', [app, person]) as JsonObject;

const rejected = (termMonths: number, rejectionReasons: string[]) => ({
  eligible: false,
  maxApprovedAmount: 0,
  interestRate: 0,
  term: termMonths,
  conditions: [],
  rejectionReasons,
});

describe('lending.loan.evaluateLoanEligibility', () => {
  it('approves a sound application in full', () => {
    const result = evaluateLoan(application(), applicant());
    expect(result).toEqual({ eligible: true, maxApprovedAmount: 20_000, interestRate: 7.0, term: 36, conditions: [], rejectionReasons: [] });
    expect(Object.keys(result)).toEqual(['eligible', 'maxApprovedAmount', 'interestRate', 'term', 'conditions', 'rejectionReasons']);
  });

  describe('rejection reasons', () => {
    it.each<[string, JsonObject, JsonObject, string[]]>([
      ['age 17', {}, { age: 17 }, ['applicant under 18']],
      ['no income', {}, { annualIncome: 0 }, ['no income']],
      ['negative income', {}, { annualIncome: -5000 }, ['no income']],
      ['credit score 599', {}, { creditScore: 599 }, ['credit score below 600']],
      // 120000 / 12 = 10000 a month; 4501 / 10000 = 0.4501
      ['debt-to-income 0.4501', {}, { annualIncome: 120_000, monthlyDebt: 4501 }, ['debt-to-income above 45%']],
      ['employed less than a year', {}, { yearsEmployed: 0 }, ['less than 1 year of employment']],
      ['term 5', { termMonths: 5 }, {}, ['term must be 6 to 84 months']],
      ['term 85', { termMonths: 85 }, {}, ['term must be 6 to 84 months']],
      [
        'all of them without income (debt-to-income is skipped)',
        { termMonths: 100 },
        { age: 17, annualIncome: 0, creditScore: 500, monthlyDebt: 3000, yearsEmployed: 0 },
        ['applicant under 18', 'no income', 'credit score below 600', 'less than 1 year of employment', 'term must be 6 to 84 months'],
      ],
      [
        // 12000 / 12 = 1000 a month; 600 / 1000 = 0.6
        'all of them with income, in rule order',
        { termMonths: 3 },
        { age: 17, annualIncome: 12_000, creditScore: 550, monthlyDebt: 600, yearsEmployed: 0 },
        ['applicant under 18', 'credit score below 600', 'debt-to-income above 45%', 'less than 1 year of employment', 'term must be 6 to 84 months'],
      ],
    ])('%s', (_name, app, person, reasons) => {
      const a = application(app);
      expect(evaluateLoan(a, applicant(person))).toEqual(rejected(a.termMonths as number, reasons));
    });

    it.each<[string, JsonObject, JsonObject]>([
      ['age 18', {}, { age: 18 }],
      ['credit score 600', {}, { creditScore: 600 }],
      // 4500 / 10000 = 0.45 exactly, not above
      ['debt-to-income 0.45', {}, { annualIncome: 120_000, monthlyDebt: 4500 }],
      ['employed one year', {}, { yearsEmployed: 1 }],
      ['term 6', { termMonths: 6 }, {}],
      ['term 84', { termMonths: 84 }, {}],
    ])('eligible at %s', (_name, app, person) => {
      expect(evaluateLoan(application(app), applicant(person))).toMatchObject({ eligible: true, rejectionReasons: [] });
    });
  });

  describe('interest rate', () => {
    // Debt 1000 on 5000 a month keeps debt-to-income at 0.2, below the surcharge.
    it.each<[number, number]>([
      [800, 5.5],
      [760, 5.5],
      [759, 7.0],
      [700, 7.0],
      [699, 9.5],
      [650, 9.5],
      [649, 12.5],
      [600, 12.5],
    ])('credit score %s pays %s%%', (creditScore, interestRate) => {
      expect(evaluateLoan(application(), applicant({ creditScore }))).toMatchObject({ interestRate });
    });

    it('adds a point above 35% debt-to-income and asks for proof of income', () => {
      // 3501 / 10000 = 0.3501; 7.0 + 1.0
      expect(evaluateLoan(application(), applicant({ annualIncome: 120_000, monthlyDebt: 3501 }))).toMatchObject({
        interestRate: 8.0,
        conditions: ['proof of income required'],
      });
    });

    it('adds nothing at exactly 35% debt-to-income', () => {
      // 3500 / 10000 = 0.35
      expect(evaluateLoan(application(), applicant({ annualIncome: 120_000, monthlyDebt: 3500 }))).toMatchObject({ interestRate: 7.0, conditions: [] });
    });
  });

  describe('maximum amount', () => {
    it.each<[string, JsonObject, JsonObject, number, string[]]>([
      // score 720: cap = 60000 × 0.6 = 36000
      ['score 700+ may borrow 60% of income', { requestedAmount: 40_000 }, {}, 36_000, ['amount reduced to maximum']],
      ['a request at the cap is not reduced', { requestedAmount: 36_000 }, {}, 36_000, []],
      // score 699: cap = 60000 × 0.4 = 24000
      ['score below 700 may borrow 40% of income', { requestedAmount: 30_000 }, { creditScore: 699 }, 24_000, ['amount reduced to maximum']],
      ['a request of 24000 at 40% is not reduced', { requestedAmount: 24_000 }, { creditScore: 699 }, 24_000, []],
      ['a request of 24001 at 40% is reduced', { requestedAmount: 24_001 }, { creditScore: 699 }, 24_000, ['amount reduced to maximum']],
      // 33333 × 0.6 = 19999.8 → floor 19999 (debt 500 on 2777.75 a month stays below 35%)
      ['the cap is rounded down', { requestedAmount: 25_000 }, { annualIncome: 33_333, monthlyDebt: 500 }, 19_999, ['amount reduced to maximum']],
      // 33333 × 0.4 = 13333.2 → floor 13333
      ['the 40% cap is rounded down', { requestedAmount: 25_000 }, { annualIncome: 33_333, monthlyDebt: 500, creditScore: 650 }, 13_333, ['amount reduced to maximum']],
    ])('%s', (_name, app, person, maxApprovedAmount, conditions) => {
      expect(evaluateLoan(application(app), applicant(person))).toMatchObject({ eligible: true, maxApprovedAmount, conditions });
    });
  });

  it('asks for a business plan for business loans', () => {
    expect(evaluateLoan(application({ purpose: 'BUSINESS' }), applicant())).toMatchObject({ conditions: ['business plan required'] });
  });

  it('lists every condition in rule order', () => {
    // income 10000 a month, debt 4000: 0.4 > 0.35 → 9.5 + 1.0; cap = 120000 × 0.4 = 48000
    expect(evaluateLoan(application({ requestedAmount: 50_000, termMonths: 60, purpose: 'BUSINESS' }), applicant({ annualIncome: 120_000, monthlyDebt: 4000, creditScore: 680 }))).toEqual({
      eligible: true,
      maxApprovedAmount: 48_000,
      interestRate: 10.5,
      term: 60,
      conditions: ['proof of income required', 'amount reduced to maximum', 'business plan required'],
      rejectionReasons: [],
    });
  });
});
