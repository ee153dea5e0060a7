import { describe, expect, it } from 'vitest';

import { compilePolicy, expectFailure, run, type JsonObject } from './domain-harness.js';

// Written in de-DE: the module proves that a policy in another locale answers identically.
const program = compilePolicy('lending.creditcard', 'de-DE');

/** Housing 1500 × 12 / 60000 = 0.3 of income. */
function applicant(overrides: JsonObject = {}): JsonObject {
  return { age: 30, annualIncome: 60_000, creditScore: 700, employmentStatus: 'EMPLOYED', monthlyHousingCost: 1500, ...overrides };
}

function history(overrides: JsonObject = {}): JsonObject {
  return { bankruptcies: 0, latePayments12m: 0, utilizationPercent: 30, accountAgeYears: 5, hardInquiries6m: 1, ...overrides };
}

function offer(overrides: JsonObject = {}): JsonObject {
  return { productType: 'BASIC', requestedLimit: 5000, ...overrides };
}

const evaluateCard = (a: JsonObject, h: JsonObject, o: JsonObject) => run(program, 'evaluateCreditCardApplication', [a, h, o]) as JsonObject;

const approved = (cardType: string, creditLimit: number, interestRate: number, conditions: string[] = []) => ({
  approved: true,
  creditLimit,
  interestRate,
  cardType,
  conditions,
  rejectionReasons: [],
});

describe('lending.creditcard.evaluateCreditCardApplication', () => {
  it('reports the module locale', () => {
    expect(program.locale).toBe('de-DE');
  });

  it('approves the requested card', () => {
    // limit = min(5000, 60000 × 0.1 = 6000) = 5000
    const result = evaluateCard(applicant(), history(), offer());
    expect(result).toEqual(approved('BASIC', 5000, 22.99));
    expect(Object.keys(result)).toEqual(['approved', 'creditLimit', 'interestRate', 'cardType', 'conditions', 'rejectionReasons']);
  });

  describe('rejection reasons', () => {
    it.each<[string, JsonObject, JsonObject, string[]]>([
      ['age 17', { age: 17 }, {}, ['applicant under 18']],
      ['bankruptcy with score 649', { creditScore: 649 }, { bankruptcies: 1 }, ['bankruptcy on record']],
      ['credit score 549', { creditScore: 549 }, {}, ['credit score below 550']],
      ['bankruptcy and score 549', { creditScore: 549 }, { bankruptcies: 1 }, ['bankruptcy on record', 'credit score below 550']],
      // the housing share (1500 × 12 / 11999 ≈ 1.5) is not looked at without enough income
      ['income 11999', { annualIncome: 11_999 }, {}, ['income below 12000']],
      // 501 × 12 / 12000 = 0.501
      ['housing above half of income', { annualIncome: 12_000, monthlyHousingCost: 501 }, {}, ['housing cost above 50% of income']],
      [
        'all of them, in rule order',
        { age: 17, creditScore: 500, annualIncome: 10_000, monthlyHousingCost: 9000 },
        { bankruptcies: 2 },
        ['applicant under 18', 'bankruptcy on record', 'credit score below 550', 'income below 12000'],
      ],
      [
        'all but income, with the housing share',
        { age: 16, creditScore: 540, annualIncome: 20_000, monthlyHousingCost: 1000 },
        { bankruptcies: 1 },
        ['applicant under 18', 'bankruptcy on record', 'credit score below 550', 'housing cost above 50% of income'],
      ],
    ])('%s', (_name, a, h, rejectionReasons) => {
      expect(evaluateCard(applicant(a), history(h), offer())).toEqual({
        approved: false,
        creditLimit: 0,
        interestRate: 0,
        cardType: 'NONE',
        conditions: [],
        rejectionReasons,
      });
    });

    it.each<[string, JsonObject, JsonObject, JsonObject]>([
      ['age 18', { age: 18 }, {}, approved('BASIC', 5000, 22.99)],
      ['bankruptcy with score 650', { creditScore: 650 }, { bankruptcies: 1 }, approved('BASIC', 5000, 22.99)],
      // 550 < 620 makes the card a secured one: 60000 × 0.05 = 3000
      ['credit score 550', { creditScore: 550 }, {}, approved('SECURED', 3000, 24.99, ['security deposit equal to the limit'])],
      // 500 × 12 / 12000 = 0.5, not above; limit = min(5000, 12000 × 0.1 = 1200)
      ['housing at exactly half of income 12000', { annualIncome: 12_000, monthlyHousingCost: 500 }, {}, approved('BASIC', 1200, 22.99)],
    ])('approves at %s', (_name, a, h, expected) => {
      expect(evaluateCard(applicant(a), history(h), offer())).toEqual(expected);
    });
  });

  describe('card type', () => {
    it.each<[string, JsonObject, JsonObject, JsonObject, JsonObject]>([
      ['score 619 gets a secured card', { creditScore: 619 }, {}, {}, approved('SECURED', 3000, 24.99, ['security deposit equal to the limit'])],
      ['score 620 gets the requested card', { creditScore: 620 }, {}, {}, approved('BASIC', 5000, 22.99)],
      ['3 late payments get a secured card', {}, { latePayments12m: 3 }, {}, approved('SECURED', 3000, 24.99, ['security deposit equal to the limit'])],
      ['2 late payments get the requested card', {}, { latePayments12m: 2 }, {}, approved('BASIC', 5000, 22.99)],
      [
        'utilization 90% gets a secured card and a review',
        {},
        { utilizationPercent: 90 },
        {},
        approved('SECURED', 3000, 24.99, ['security deposit equal to the limit', 'limit review after 6 months']),
      ],
      ['utilization 89% gets the requested card and a review', {}, { utilizationPercent: 89 }, {}, approved('BASIC', 5000, 22.99, ['limit review after 6 months'])],
      ['utilization 51% gets a review', {}, { utilizationPercent: 51 }, {}, approved('BASIC', 5000, 22.99, ['limit review after 6 months'])],
      ['utilization 50% gets no review', {}, { utilizationPercent: 50 }, {}, approved('BASIC', 5000, 22.99)],
      ['a secured card is not reported as a downgrade', { creditScore: 600 }, {}, { productType: 'PREMIUM', requestedLimit: 30_000 }, approved('SECURED', 3000, 24.99, ['security deposit equal to the limit'])],
      // PREMIUM: 75000 × 0.3 = 22500
      ['PREMIUM at score 740 and income 75000', { creditScore: 740, annualIncome: 75_000 }, {}, { productType: 'PREMIUM', requestedLimit: 30_000 }, approved('PREMIUM', 22_500, 16.99)],
      // REWARDS: 75000 × 0.2 = 15000
      [
        'PREMIUM at score 739 becomes REWARDS',
        { creditScore: 739, annualIncome: 75_000 },
        {},
        { productType: 'PREMIUM', requestedLimit: 30_000 },
        approved('REWARDS', 15_000, 19.99, ['offered REWARDS instead of PREMIUM']),
      ],
      // 74999 × 0.2 = 14999.8; floor(149.998) × 100 = 14900
      [
        'PREMIUM at income 74999 becomes REWARDS',
        { creditScore: 740, annualIncome: 74_999 },
        {},
        { productType: 'PREMIUM', requestedLimit: 30_000 },
        approved('REWARDS', 14_900, 19.99, ['offered REWARDS instead of PREMIUM']),
      ],
      // downgraded twice; BASIC: 80000 × 0.1 = 8000
      [
        'PREMIUM at score 669 becomes BASIC',
        { creditScore: 669, annualIncome: 80_000 },
        {},
        { productType: 'PREMIUM', requestedLimit: 30_000 },
        approved('BASIC', 8000, 22.99, ['offered BASIC instead of PREMIUM']),
      ],
      ['REWARDS at score 670', { creditScore: 670 }, {}, { productType: 'REWARDS', requestedLimit: 10_000 }, approved('REWARDS', 10_000, 19.99)],
      // BASIC: min(10000, 60000 × 0.1 = 6000)
      ['REWARDS at score 669 becomes BASIC', { creditScore: 669 }, {}, { productType: 'REWARDS', requestedLimit: 10_000 }, approved('BASIC', 6000, 22.99, ['offered BASIC instead of REWARDS'])],
      [
        'conditions in rule order',
        { creditScore: 669 },
        { utilizationPercent: 60 },
        { productType: 'REWARDS', requestedLimit: 10_000 },
        approved('BASIC', 6000, 22.99, ['offered BASIC instead of REWARDS', 'limit review after 6 months']),
      ],
    ])('%s', (_name, a, h, o, expected) => {
      expect(evaluateCard(applicant(a), history(h), offer(o))).toEqual(expected);
    });
  });

  describe('credit limit', () => {
    it.each<[string, JsonObject, JsonObject, number]>([
      // floor(5050 / 100) × 100 = 5000
      ['rounded down to hundreds', {}, { requestedLimit: 5050 }, 5000],
      // min(5000, 2345.6) = 2345.6 → 2300 (housing 500 × 12 / 23456 stays low)
      ['an income share rounded down to hundreds', { annualIncome: 23_456, monthlyHousingCost: 500 }, {}, 2300],
      // floor(250 / 100) × 100 = 200 → at least 300
      ['at least 300', {}, { requestedLimit: 250 }, 300],
      ['exactly 300', {}, { requestedLimit: 300 }, 300],
    ])('%s', (_name, a, o, creditLimit) => {
      expect(evaluateCard(applicant(a), history(), offer(o))).toMatchObject({ approved: true, creditLimit });
    });

    it('applies the secured share and the floor of 300', () => {
      // 12000 × 0.05 = 600
      expect(evaluateCard(applicant({ creditScore: 600, annualIncome: 12_000, monthlyHousingCost: 400 }), history(), offer())).toMatchObject({ cardType: 'SECURED', creditLimit: 600 });
      // min(250, 600) = 250 → 200 → 300
      expect(evaluateCard(applicant({ creditScore: 600, annualIncome: 12_000, monthlyHousingCost: 400 }), history(), offer({ requestedLimit: 250 }))).toMatchObject({ cardType: 'SECURED', creditLimit: 300 });
    });
  });

  describe('interest rate', () => {
    it.each<[string, JsonObject, JsonObject, JsonObject, number]>([
      ['3 hard inquiries add nothing', {}, { hardInquiries6m: 3 }, {}, 22.99],
      ['4 hard inquiries add 2 points', {}, { hardInquiries6m: 4 }, {}, 24.99],
      ['on a secured card', { creditScore: 600 }, { hardInquiries6m: 4 }, {}, 26.99],
      ['on a REWARDS card', {}, { hardInquiries6m: 6 }, { productType: 'REWARDS' }, 21.99],
      ['on a PREMIUM card', { creditScore: 800, annualIncome: 90_000 }, { hardInquiries6m: 5 }, { productType: 'PREMIUM' }, 18.99],
    ])('%s', (_name, a, h, o, interestRate) => {
      expect(evaluateCard(applicant(a), history(h), offer(o))).toMatchObject({ interestRate });
    });
  });

  describe('input validation', () => {
    it.each(['EMPLOYED', 'SELF_EMPLOYED', 'STUDENT', 'RETIRED', 'UNEMPLOYED'])('accepts employmentStatus %s', (employmentStatus) => {
      expect(evaluateCard(applicant({ employmentStatus }), history(), offer())).toEqual(approved('BASIC', 5000, 22.99));
    });

    it.each(['CONTRACTOR', 'employed', ''])('rejects employmentStatus %j', (employmentStatus) => {
      expectFailure(
        program,
        'evaluateCreditCardApplication',
        [applicant({ employmentStatus }), history(), offer()],
        '`employmentStatus` must be one of EMPLOYED, SELF_EMPLOYED, STUDENT, RETIRED, UNEMPLOYED',
      );
    });

    it.each(['GOLD', 'SECURED', 'NONE', 'premium'])('rejects productType %j', (productType) => {
      expectFailure(program, 'evaluateCreditCardApplication', [applicant(), history(), offer({ productType })], '`productType` must be one of BASIC, REWARDS, PREMIUM');
    });
  });
});
