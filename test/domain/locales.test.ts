/**
 * Every built-in module reads the same in every locale: formatted into another locale it parses to
 * the same tree and answers the same questions with the same values and the same failures.
 */
import { describe, expect, it } from 'vitest';

import { compile, evaluate, format, parse, stripPositions, SUPPORTED_LOCALES, type JsonValue, type Locale } from '../../src/language/index.js';
import { compilePolicy, policySource } from './domain-harness.js';

type Case = [functionName: string, args: JsonValue[]];

const lifeApplicant = { name: 'Ana Silva', age: 50, smoker: true, bmi: 36.0, healthScore: 60, occupationRisk: 'HIGH', familyHistory: true };
const loanApplication = { requestedAmount: 50_000, termMonths: 60, purpose: 'BUSINESS' };

const MODULES: ReadonlyArray<[moduleName: string, locale: Locale, cases: Case[]]> = [
  [
    'insurance.life',
    'en-US',
    [
      ['calculateLifeRiskScore', [lifeApplicant]],
      ['generateLifeQuote', [lifeApplicant, { coverageAmount: 250_000, termYears: 25, policyType: 'TERM' }]],
      ['generateLifeQuote', [lifeApplicant, { coverageAmount: 250_000, termYears: 25, policyType: 'OTHER' }]],
    ],
  ],
  [
    'insurance.auto',
    'en-US',
    [
      ['generateAutoQuote', [{ age: 22, yearsLicensed: 2, accidents: 1, violations: 2, creditScore: 580 }, { ageYears: 12, value: 23_457, safetyRating: 4, usage: 'COMMUTE' }, 'COMPREHENSIVE']],
      ['generateAutoQuote', [{ age: 15, yearsLicensed: 0, accidents: 0, violations: 0, creditScore: 700 }, { ageYears: 1, value: 9000, safetyRating: 5, usage: 'PERSONAL' }, 'LIABILITY']],
    ],
  ],
  [
    'healthcare.eligibility',
    'en-US',
    [
      ['checkServiceEligibility', [{ age: 12, insuranceType: 'STANDARD', chronicConditions: 1, hasReferral: false }, { serviceCode: 'S1', category: 'SPECIALIST', requiresPreAuth: true, preAuthObtained: false }]],
      ['checkServiceEligibility', [{ age: 40, insuranceType: 'BASIC', chronicConditions: 0, hasReferral: true }, { serviceCode: 'S2', category: 'DENTAL', requiresPreAuth: false, preAuthObtained: false }]],
    ],
  ],
  [
    'healthcare.claims',
    'zh-CN',
    [
      ['processClaim', [{ claimId: 'C-1', amount: 20_000, category: 'SURGERY', diagnosisCode: 'K35', hasDocumentation: true, daysSinceService: 30 }, { providerId: 'P', inNetwork: false, qualityScore: 70 }, 90]],
      ['processClaim', [{ claimId: 'C-2', amount: 100, category: 'PRIMARY', diagnosisCode: '', hasDocumentation: true, daysSinceService: 30 }, { providerId: 'P', inNetwork: true, qualityScore: 70 }, 101]],
    ],
  ],
  [
    'lending.loan',
    'en-US',
    [
      ['evaluateLoanEligibility', [loanApplication, { age: 40, annualIncome: 120_000, creditScore: 680, monthlyDebt: 4000, yearsEmployed: 3 }]],
      ['evaluateLoanEligibility', [loanApplication, { age: 17, annualIncome: 0, creditScore: 500, monthlyDebt: 100, yearsEmployed: 0 }]],
    ],
  ],
  [
    'lending.creditcard',
    'de-DE',
    [
      ['evaluateCreditCardApplication', [{ age: 30, annualIncome: 80_000, creditScore: 669, employmentStatus: 'EMPLOYED', monthlyHousingCost: 1500 }, { bankruptcies: 0, latePayments12m: 0, utilizationPercent: 60, accountAgeYears: 4, hardInquiries6m: 4 }, { productType: 'PREMIUM', requestedLimit: 30_000 }]],
      ['evaluateCreditCardApplication', [{ age: 30, annualIncome: 80_000, creditScore: 669, employmentStatus: 'INTERN', monthlyHousingCost: 1500 }, { bankruptcies: 0, latePayments12m: 0, utilizationPercent: 60, accountAgeYears: 4, hardInquiries6m: 4 }, { productType: 'PREMIUM', requestedLimit: 30_000 }]],
    ],
  ],
  [
    'lending.enterprise',
    'en-US',
    [
      [
        'evaluateEnterpriseLoan',
        [
          { name: 'Acme', industry: 'TECHNOLOGY', yearsInBusiness: 6, employees: 40, annualRevenue: 900_000, profitMarginPercent: 11.5 },
          { totalAssets: 800_000, totalLiabilities: 300_000, currentAssets: 250_000, currentLiabilities: 100_000, monthlyCashFlow: 12_000 },
          { previousDefaults: 0, latePayments: 1, relationshipYears: 3 },
          { requestedAmount: 600_000, termMonths: 48, collateralValue: 100_000, purpose: 'EQUIPMENT' },
        ],
      ],
    ],
  ],
  [
    'lending.personal',
    'en-US',
    [
      ['evaluatePersonalLoan', [{ name: 'Sam', age: 35, employmentYears: 5, dependents: 3 }, { annualIncome: 36_000, employmentType: 'CONTRACT' }, { creditScore: 700, latePayments: 1, defaults: 0 }, { totalMonthlyDebt: 1000 }, { requestedAmount: 20_000, requestedTermMonths: 36, purpose: 'DEBT_CONSOLIDATION' }]],
      ['evaluatePersonalLoan', [{ name: 'Sam', age: 35, employmentYears: 5, dependents: 0 }, { annualIncome: 36_000, employmentType: 'INTERN' }, { creditScore: 700, latePayments: 1, defaults: 0 }, { totalMonthlyDebt: 1000 }, { requestedAmount: 20_000, requestedTermMonths: 36, purpose: 'CAR' }]],
    ],
  ],
];

/** An evaluation's outcome without source positions, which legitimately move when reformatted. */
function outcome(result: ReturnType<typeof evaluate>) {
  return result.ok ? { ok: true, value: result.value } : { ok: false, failures: result.diagnostics.map((d) => [d.code, d.message]) };
}

describe.each(MODULES)('%s (written in %s)', (moduleName, locale, cases) => {
  const original = compilePolicy(moduleName, locale);
  const tree = parse(policySource(moduleName), locale).module!;

  it.each(SUPPORTED_LOCALES.map((target) => [target]))('reads and answers the same in %s', (target) => {
    const text = format(tree, target);
    const reparsed = parse(text, target);
    expect(reparsed.diagnostics).toEqual([]);
    expect(stripPositions(reparsed.module!)).toEqual(stripPositions(tree));

    const { program, diagnostics } = compile(text, target);
    expect(diagnostics).toEqual([]);
    for (const [functionName, args] of cases) {
      expect(outcome(evaluate(program!, functionName, args))).toEqual(outcome(evaluate(original, functionName, args)));
    }
  });
});
