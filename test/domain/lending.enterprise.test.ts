import { describe, expect, it } from 'vitest';

import { compilePolicy, run, type JsonObject } from './domain-harness.js';

const program = compilePolicy('lending.enterprise', 'en-US');

/*
 * The baseline scores 60: 50, current ratio 300k / 200k = 1.5 (no bonus), leverage 600k / 400k = 1.5
 * (neither bonus nor malus), margin 8% (no bonus), relationship 2 years (+10), no late payments,
 * a neutral industry. Capacity 40000 × 36 × 0.5 = 720000 and half the revenue, 1000000, both exceed
 * the 500000 asked for.
 */
function enterprise(overrides: JsonObject = {}): JsonObject {
  return { name: 'Acme Tools', industry: 'RETAIL', yearsInBusiness: 5, employees: 50, annualRevenue: 2_000_000, profitMarginPercent: 8.0, ...overrides };
}

function position(overrides: JsonObject = {}): JsonObject {
  return { totalAssets: 1_000_000, totalLiabilities: 600_000, currentAssets: 300_000, currentLiabilities: 200_000, monthlyCashFlow: 40_000, ...overrides };
}

function history(overrides: JsonObject = {}): JsonObject {
  return { previousDefaults: 0, latePayments: 0, relationshipYears: 2, ...overrides };
}

function application(overrides: JsonObject = {}): JsonObject {
  return { requestedAmount: 500_000, termMonths: 36, collateralValue: 300_000, purpose: 'EXPANSION', ...overrides };
}

interface Inputs {
  e?: JsonObject;
  p?: JsonObject;
  h?: JsonObject;
  a?: JsonObject;
}

const evaluateLoan = ({ e = {}, p = {}, h = {}, a = {} }: Inputs) =>
  run(program, 'evaluateEnterpriseLoan', [enterprise(e), position(p), history(h), application(a)]) as JsonObject;

const eligible = (approvedAmount: number, interestRate: number, collateralRequired: boolean, conditions: string[]) => ({
  eligible: true,
  approvedAmount,
  interestRate,
  collateralRequired,
  conditions,
  rejectionReasons: [],
});

const QUARTERLY = 'quarterly financial statements';
const LIMITED = 'amount limited by repayment capacity';
const COLLATERAL = 'collateral of at least 50% of the amount required';

/** What a score means for a 500000 request that capacity covers, with collateral 300000. */
const atScore = (score: number) => {
  if (score >= 80) return eligible(500_000, 6.0, false, []);
  if (score >= 65) return eligible(500_000, 7.5, false, []);
  if (score >= 50) return eligible(500_000, 9.5, true, [QUARTERLY]);
  return eligible(500_000, 12.0, true, [QUARTERLY]);
};

describe('lending.enterprise.evaluateEnterpriseLoan', () => {
  it('approves the baseline (score 60)', () => {
    const result = evaluateLoan({});
    expect(result).toEqual(eligible(500_000, 9.5, true, [QUARTERLY]));
    expect(Object.keys(result)).toEqual(['eligible', 'approvedAmount', 'interestRate', 'collateralRequired', 'conditions', 'rejectionReasons']);
  });

  // Scores are only visible through the rate, collateral and conditions, so every case is placed
  // where its points move the score across a band (80 / 65 / 50) or leave it inside one.
  it.each<[string, Inputs, number]>([
    ['current ratio 2.0 adds 15', { p: { currentAssets: 400_000 } }, 75],
    ['current ratio 1.99 adds nothing', { p: { currentAssets: 398_000 } }, 60],
    ['no current liabilities counts as ratio 2.0', { p: { currentLiabilities: 0 } }, 75],
    // liabilities 500000 / equity 500000 = 1
    ['leverage 1 adds 10', { p: { totalLiabilities: 500_000 } }, 70],
    // 500001 / 499999 ≈ 1.000004
    ['leverage just above 1 adds nothing', { p: { totalLiabilities: 500_001 } }, 60],
    // relationship 1 year: base 55; 500000 / 200000 = 2.5
    ['leverage 2.5 takes nothing', { p: { totalAssets: 700_000, totalLiabilities: 500_000 }, h: { relationshipYears: 1 } }, 55],
    // 500001 / 199999 ≈ 2.50001
    ['leverage above 2.5 takes 10', { p: { totalAssets: 700_000, totalLiabilities: 500_001 }, h: { relationshipYears: 1 } }, 45],
    ['profit margin 10% adds 10', { e: { profitMarginPercent: 10.0 } }, 70],
    ['profit margin 9.99% adds nothing', { e: { profitMarginPercent: 9.99 } }, 60],
    ['no relationship', { h: { relationshipYears: 0 } }, 50],
    ['a 3-year relationship adds 15', { h: { relationshipYears: 3 } }, 65],
    ['a 4-year relationship adds 20', { h: { relationshipYears: 4 } }, 70],
    // 50 + 20 + 5; counting a fifth year would reach 80
    ['a relationship counts for at most 4 years', { e: { industry: 'TECHNOLOGY' }, h: { relationshipYears: 5 } }, 75],
    // uncapped it would be 50 + 50 = 100
    ['a 10-year relationship still adds 20', { h: { relationshipYears: 10 } }, 70],
    ['each late payment takes 5', { h: { relationshipYears: 0, latePayments: 1 } }, 45],
    ['construction takes 10', { e: { industry: 'CONSTRUCTION' }, h: { relationshipYears: 0 } }, 40],
    ['hospitality takes 10', { e: { industry: 'HOSPITALITY' }, h: { relationshipYears: 0 } }, 40],
    ['technology adds 5', { e: { industry: 'TECHNOLOGY' } }, 65],
    ['healthcare adds 5', { e: { industry: 'HEALTHCARE' } }, 65],
    // 50 + 15 + 10 + 5
    ['score 80 gets the best rate', { p: { currentAssets: 400_000 }, e: { profitMarginPercent: 12.5 }, h: { relationshipYears: 1 } }, 80],
    // 50 + 15 + 10 + 10 + 20 + 5 = 110
    ['every bonus', { p: { currentAssets: 400_000, totalLiabilities: 400_000 }, e: { profitMarginPercent: 20.0, industry: 'TECHNOLOGY' }, h: { relationshipYears: 4 } }, 110],
    // 50 − 15
    ['score 35 is still eligible', { h: { relationshipYears: 0, latePayments: 3 } }, 35],
  ])('%s', (_name, inputs, score) => {
    expect(evaluateLoan(inputs)).toEqual(atScore(score));
  });

  describe('rejection reasons', () => {
    const rejected = (rejectionReasons: string[]) => ({
      eligible: false,
      approvedAmount: 0,
      interestRate: 0,
      collateralRequired: false,
      conditions: [],
      rejectionReasons,
    });

    it.each<[string, Inputs, string[]]>([
      ['1 year in business', { e: { yearsInBusiness: 1 } }, ['less than 2 years in business']],
      ['a previous default', { h: { previousDefaults: 1 } }, ['previous default']],
      ['zero equity', { p: { totalAssets: 600_000, totalLiabilities: 600_000 } }, ['negative equity']],
      ['negative equity', { p: { totalAssets: 500_000, totalLiabilities: 600_000 } }, ['negative equity']],
      // 199999 / 200000 = 0.999995
      ['current ratio below 1', { p: { currentAssets: 199_999 } }, ['current ratio below 1.0']],
      ['no cash flow', { p: { monthlyCashFlow: 0 } }, ['negative cash flow']],
      ['negative cash flow', { p: { monthlyCashFlow: -500 } }, ['negative cash flow']],
      // 50 − 20
      ['score 30', { h: { relationshipYears: 0, latePayments: 4 } }, ['risk score too low']],
      [
        // score 50 − 20 − 10 = 20 (no ratio bonus at 0.5, no leverage points without equity)
        'all of them, in rule order',
        {
          e: { yearsInBusiness: 1, industry: 'CONSTRUCTION' },
          p: { totalAssets: 500_000, totalLiabilities: 500_100, currentAssets: 100_000, monthlyCashFlow: -1 },
          h: { previousDefaults: 1, relationshipYears: 0, latePayments: 4 },
        },
        ['less than 2 years in business', 'previous default', 'negative equity', 'current ratio below 1.0', 'negative cash flow', 'risk score too low'],
      ],
    ])('%s', (_name, inputs, reasons) => {
      expect(evaluateLoan(inputs)).toEqual(rejected(reasons));
    });

    it.each<[string, Inputs]>([
      ['2 years in business', { e: { yearsInBusiness: 2 } }],
      ['current ratio exactly 1', { p: { currentAssets: 200_000 } }],
    ])('eligible with %s', (_name, inputs) => {
      expect(evaluateLoan(inputs)).toEqual(atScore(60));
    });
  });

  describe('approved amount and conditions', () => {
    it.each<[string, Inputs, JsonObject]>([
      // 10000 × 36 × 0.5 = 180000
      ['limited by cash flow', { p: { monthlyCashFlow: 10_000 } }, eligible(180_000, 9.5, true, [LIMITED, QUARTERLY])],
      // 10001 × 35 × 0.5 = 175017.5 → 175017
      ['capacity is rounded down', { p: { monthlyCashFlow: 10_001 }, a: { termMonths: 35 } }, eligible(175_017, 9.5, true, [LIMITED, QUARTERLY])],
      // a tiny cash flow still qualifies: 1 × 36 × 0.5 = 18
      ['a cash flow of 1', { p: { monthlyCashFlow: 1 } }, eligible(18, 9.5, true, [LIMITED, QUARTERLY])],
      // 600000 × 0.5 = 300000 (the message is the same when revenue is what limits)
      ['limited by revenue', { e: { annualRevenue: 600_000 } }, eligible(300_000, 9.5, true, [LIMITED, QUARTERLY])],
      // 600001 × 0.5 = 300000.5 → 300000
      ['half the revenue is rounded down', { e: { annualRevenue: 600_001 } }, eligible(300_000, 9.5, true, [LIMITED, QUARTERLY])],
      // collateral 249999 < 500000 × 0.5
      ['too little collateral', { a: { collateralValue: 249_999 } }, eligible(500_000, 9.5, true, [COLLATERAL, QUARTERLY])],
      ['collateral of exactly half', { a: { collateralValue: 250_000 } }, eligible(500_000, 9.5, true, [QUARTERLY])],
      // score 75: no collateral needed, however little there is
      ['no collateral needed at score 65+', { p: { currentAssets: 400_000 }, a: { collateralValue: 0 } }, eligible(500_000, 7.5, false, [])],
      // collateral is judged against the approved amount: 180000 × 0.5 = 90000 > 50000
      ['every condition, in rule order', { p: { monthlyCashFlow: 10_000 }, a: { collateralValue: 50_000 } }, eligible(180_000, 9.5, true, [LIMITED, COLLATERAL, QUARTERLY])],
      ['collateral judged against the approved amount', { p: { monthlyCashFlow: 10_000 }, a: { collateralValue: 90_000 } }, eligible(180_000, 9.5, true, [LIMITED, QUARTERLY])],
    ])('%s', (_name, inputs, expected) => {
      expect(evaluateLoan(inputs)).toEqual(expected);
    });

    // score 75, cash flow 100000 (capacity 1800000), revenue 4000000 (half 2000000)
    const large = { p: { currentAssets: 400_000, monthlyCashFlow: 100_000 }, e: { annualRevenue: 4_000_000 } };

    it('needs collateral above 1000000 whatever the score', () => {
      // 300000 < 1000001 × 0.5
      expect(evaluateLoan({ ...large, a: { requestedAmount: 1_000_001 } })).toEqual(eligible(1_000_001, 7.5, true, [COLLATERAL]));
    });

    it('needs no collateral for exactly 1000000 at a good score', () => {
      expect(evaluateLoan({ ...large, a: { requestedAmount: 1_000_000 } })).toEqual(eligible(1_000_000, 7.5, false, []));
    });
  });
});
