/**
 * Every domain query through real signed HTTP, answered by the built-in policies on real engine
 * threads. Expected values are worked out from docs/domain.md's rules by hand (see each case's note).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGraphqlHarness, type GraphqlHarness } from './graphql-support/graphql-harness.js';

let h: GraphqlHarness;
beforeAll(async () => {
  h = await startGraphqlHarness();
});
afterAll(async () => {
  await h.close();
});

/** Argument names and types of each query, in order, and the whole result selection. */
const QUERIES: Record<string, { args: Array<[string, string]>; select: string; policyModule: string }> = {
  generateLifeQuote: {
    args: [['applicant', 'LifeInsuranceApplicant!'], ['request', 'LifeInsurancePolicyRequest!']],
    select: 'premium coverageAmount term eligibility exclusions',
    policyModule: 'insurance.life',
  },
  calculateLifeRiskScore: {
    args: [['applicant', 'LifeInsuranceApplicant!']],
    select: 'score band factors',
    policyModule: 'insurance.life',
  },
  generateAutoQuote: {
    args: [['driver', 'AutoInsuranceDriver!'], ['vehicle', 'AutoInsuranceVehicle!'], ['coverageType', 'String!']],
    select: 'annualPremium monthlyPremium coverageOptions { type included premium }',
    policyModule: 'insurance.auto',
  },
  checkServiceEligibility: {
    args: [['patient', 'HealthcarePatient!'], ['service', 'HealthcareService!']],
    select: 'eligible reason eligibleServices ineligibleServices { service reason }',
    policyModule: 'healthcare.eligibility',
  },
  processClaim: {
    args: [['claim', 'HealthcareClaim!'], ['provider', 'HealthcareProvider!'], ['patientCoverage', 'Int!']],
    select: 'approved approvedAmount denialReason requiredDocuments referenceNumber',
    policyModule: 'healthcare.claims',
  },
  evaluateLoanEligibility: {
    args: [['application', 'LoanApplication!'], ['applicant', 'LoanApplicant!']],
    select: 'eligible maxApprovedAmount interestRate term conditions rejectionReasons',
    policyModule: 'lending.loan',
  },
  evaluateCreditCardApplication: {
    args: [['applicant', 'CreditCardApplicantInfo!'], ['history', 'CreditCardFinancialHistory!'], ['offer', 'CreditCardOffer!']],
    select: 'approved creditLimit interestRate cardType conditions rejectionReasons',
    policyModule: 'lending.creditcard',
  },
  evaluateEnterpriseLoan: {
    args: [
      ['enterprise', 'EnterpriseInfo!'],
      ['position', 'FinancialPosition!'],
      ['history', 'BusinessHistory!'],
      ['application', 'EnterpriseLoanApplication!'],
    ],
    select: 'eligible approvedAmount interestRate collateralRequired conditions rejectionReasons',
    policyModule: 'lending.enterprise',
  },
  evaluatePersonalLoan: {
    args: [
      ['personal', 'PersonalInfo!'],
      ['income', 'IncomeProfile!'],
      ['credit', 'CreditProfile!'],
      ['debt', 'DebtProfile!'],
      ['request', 'PersonalLoanRequest!'],
    ],
    select: 'eligible approvedAmount interestRate monthlyRepayment term conditions rejectionReasons',
    policyModule: 'lending.personal',
  },
};

function documentFor(field: string): string {
  const { args, select } = QUERIES[field]!;
  const declarations = args.map(([name, type]) => `$${name}: ${type}`).join(', ');
  const passing = args.map(([name]) => `${name}: $${name}`).join(', ');
  return `query (${declarations}) { ${field}(${passing}) { ${select} } }`;
}

type Vars = Record<string, unknown>;
interface Success {
  name: string;
  vars: Vars;
  expected: Record<string, unknown>;
}
interface Failure {
  name: string;
  vars: Vars;
  code: string;
  message: string;
}

async function decide(field: string, vars: Vars) {
  const response = await h.graphql(documentFor(field), vars);
  return response;
}

function tableFor(field: string, successes: Success[], failures: Failure[] = []) {
  describe(field, () => {
    it.each(successes.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const { status, body } = await decide(field, c.vars);
      expect(body.errors).toBeUndefined();
      expect(status).toBe(200);
      expect(body.data).toEqual({ [field]: c.expected });
    });

    if (failures.length > 0) {
      it.each(failures.map((c) => [c.name, c] as const))('fails: %s', async (_name, c) => {
        const { status, body } = await decide(field, c.vars);
        expect(status).toBe(200);
        expect(body.data).toEqual({ [field]: null });
        expect(body.errors).toHaveLength(1);
        expect(body.errors![0]).toMatchObject({
          message: c.message,
          path: [field],
          extensions: { code: c.code, policyModule: QUERIES[field]!.policyModule, policyFunction: field },
        });
      });
    }

    it('passes the arguments to the engine as separate parameters, in argument order', async () => {
      const vars = successes[0]!.vars;
      const before = h.decideCalls.length;
      await decide(field, vars);
      expect(h.decideCalls.slice(before)).toEqual([
        {
          tenantId: 'acme',
          policyModule: QUERIES[field]!.policyModule,
          policyFunction: field,
          args: QUERIES[field]!.args.map(([name]) => vars[name]),
        },
      ]);
    });
  });
}

// ── insurance.life ──────────────────────────────────────────────────────────────────────────────
const healthyAt30 = { name: 'Ann', age: 30, smoker: false, bmi: 22.5, healthScore: 85, occupationRisk: 'LOW', familyHistory: false };
// age 45–59 +10, smoker +30, bmi 30–35 +10, health < 70 +10, MEDIUM +8, family +10 = 78
const riskyAt50 = { name: 'Bo', age: 50, smoker: true, bmi: 31.5, healthScore: 65, occupationRisk: 'MEDIUM', familyHistory: true };
// 25 + 30 + 20 + 25 + 20 + 10 = 130, capped at 100
const worstAt65 = { name: 'Cy', age: 65, smoker: true, bmi: 36, healthScore: 40, occupationRisk: 'HIGH', familyHistory: true };

tableFor(
  'calculateLifeRiskScore',
  [
    { name: 'no risk factor: 0, LOW', vars: { applicant: healthyAt30 }, expected: { score: 0, band: 'LOW', factors: [] } },
    {
      name: 'bmi under 18.5 (+5), health under 70 (+10), family (+10): 25, MODERATE',
      vars: { applicant: { ...healthyAt30, age: 40, bmi: 17.0, healthScore: 60, familyHistory: true } },
      expected: { score: 25, band: 'MODERATE', factors: ['bmi under 18.5', 'health score under 70', 'family history'] },
    },
    {
      name: 'age 45 + smoker (+40): 40, HIGH',
      vars: { applicant: { ...healthyAt30, age: 45, smoker: true } },
      expected: { score: 40, band: 'HIGH', factors: ['age 45 to 59', 'smoker'] },
    },
    {
      name: 'six factors: 78, VERY_HIGH',
      vars: { applicant: riskyAt50 },
      expected: {
        score: 78,
        band: 'VERY_HIGH',
        factors: ['age 45 to 59', 'smoker', 'bmi 30 to 35', 'health score under 70', 'moderate-risk occupation', 'family history'],
      },
    },
    {
      name: 'capped at 100',
      vars: { applicant: worstAt65 },
      expected: {
        score: 100,
        band: 'VERY_HIGH',
        factors: ['age 60 or over', 'smoker', 'bmi 35 or over', 'health score under 50', 'high-risk occupation', 'family history'],
      },
    },
  ],
  [
    {
      name: 'occupationRisk outside LOW|MEDIUM|HIGH',
      vars: { applicant: { ...healthyAt30, occupationRisk: 'EXTREME' } },
      code: 'PL3004',
      message: '`occupationRisk` must be one of LOW, MEDIUM, HIGH',
    },
  ],
);

tableFor(
  'generateLifeQuote',
  [
    {
      // rate 0.8 + 0.05 × 12 = 1.4; 100 × 1.4 = 140 a year; 140 / 12 = 11.666…
      name: 'TERM of 20 years at 30, no risk: ELIGIBLE',
      vars: { applicant: healthyAt30, request: { coverageAmount: 100000, termYears: 20, policyType: 'TERM' } },
      expected: { premium: 11.67, coverageAmount: 100000, term: 20, eligibility: 'ELIGIBLE', exclusions: [] },
    },
    {
      // rate 0.8 + 0.05 × 32 = 2.4; 250 × 2.4 × 1.78 × 1.15 (TERM over 20 years) = 1228.2; / 12 = 102.35
      name: 'TERM of 25 years at 50, score 78: REFERRED',
      vars: { applicant: riskyAt50, request: { coverageAmount: 250000, termYears: 25, policyType: 'TERM' } },
      expected: {
        premium: 102.35,
        coverageAmount: 250000,
        term: 25,
        eligibility: 'REFERRED',
        exclusions: ['smoking-related illness in first 2 years'],
      },
    },
    {
      // rate 4.0 + 0.12 × 47 = 9.64; 50 × 9.64 × 2 = 964; / 12 = 80.333…
      name: 'WHOLE at 65, score 100: REFERRED with every exclusion',
      vars: { applicant: worstAt65, request: { coverageAmount: 50000, termYears: 10, policyType: 'WHOLE' } },
      expected: {
        premium: 80.33,
        coverageAmount: 50000,
        term: 10,
        eligibility: 'REFERRED',
        exclusions: ['smoking-related illness in first 2 years', 'occupational hazards', 'obesity-related conditions'],
      },
    },
    {
      name: 'three decline reasons: DECLINED, premium 0, exclusions are the reasons',
      vars: { applicant: { ...healthyAt30, age: 17 }, request: { coverageAmount: 6000000, termYears: 45, policyType: 'TERM' } },
      expected: {
        premium: 0,
        coverageAmount: 6000000,
        term: 45,
        eligibility: 'DECLINED',
        exclusions: ['applicant under 18', 'coverage above 5000000', 'term must be 5 to 40 years'],
      },
    },
    {
      name: 'over 75: DECLINED',
      vars: { applicant: { ...healthyAt30, age: 76 }, request: { coverageAmount: 10000, termYears: 5, policyType: 'WHOLE' } },
      expected: { premium: 0, coverageAmount: 10000, term: 5, eligibility: 'DECLINED', exclusions: ['applicant over 75'] },
    },
  ],
  [
    {
      name: 'policyType outside TERM|WHOLE',
      vars: { applicant: healthyAt30, request: { coverageAmount: 100000, termYears: 20, policyType: 'UNIVERSAL' } },
      code: 'PL3004',
      message: '`policyType` must be one of TERM, WHOLE',
    },
  ],
);

// ── insurance.auto ──────────────────────────────────────────────────────────────────────────────
const steadyDriver = { age: 40, yearsLicensed: 20, accidents: 0, violations: 0, creditScore: 700 };
const familyCar = { ageYears: 5, value: 20000, safetyRating: 3, usage: 'PERSONAL' };

tableFor(
  'generateAutoQuote',
  [
    {
      // risk 1.0: liability 600; collision 20000 × 0.03 = 600; comprehensive 200
      name: 'LIABILITY only, risk 1.0',
      vars: { driver: steadyDriver, vehicle: familyCar, coverageType: 'LIABILITY' },
      expected: {
        annualPremium: 600,
        monthlyPremium: 50,
        coverageOptions: [
          { type: 'LIABILITY', included: true, premium: 600 },
          { type: 'COLLISION', included: false, premium: 600 },
          { type: 'COMPREHENSIVE', included: false, premium: 200 },
        ],
      },
    },
    {
      // risk 1.3 (70+) × 0.9 (score ≥ 750) × 1.25 (BUSINESS) = 1.4625: liability 877.50;
      // collision 900 × 0.95 (rating 4) = 855; annual 1732.50; monthly 144.375
      name: 'STANDARD, senior business driver with a good score',
      vars: {
        driver: { age: 72, yearsLicensed: 50, accidents: 0, violations: 0, creditScore: 800 },
        vehicle: { ageYears: 3, value: 30000, safetyRating: 4, usage: 'BUSINESS' },
        coverageType: 'STANDARD',
      },
      expected: {
        annualPremium: 1732.5,
        monthlyPremium: 144.38,
        coverageOptions: [
          { type: 'LIABILITY', included: true, premium: 877.5 },
          { type: 'COLLISION', included: true, premium: 855 },
          { type: 'COMPREHENSIVE', included: false, premium: 300 },
        ],
      },
    },
    {
      // risk 1.6 × 1.2 × 1.25 × 1.2 × 1.15 × 1.1 = 3.6432: liability 2185.92; collision
      // 450 × 1.25 × 0.85 × 1.1 (over 10 years) = 525.9375; comprehensive 150; annual 2861.86
      name: 'COMPREHENSIVE, young commuter with an accident, two violations and a low score',
      vars: {
        driver: { age: 22, yearsLicensed: 2, accidents: 1, violations: 2, creditScore: 550 },
        vehicle: { ageYears: 12, value: 15000, safetyRating: 5, usage: 'COMMUTE' },
        coverageType: 'COMPREHENSIVE',
      },
      expected: {
        annualPremium: 2861.86,
        monthlyPremium: 238.49,
        coverageOptions: [
          { type: 'LIABILITY', included: true, premium: 2185.92 },
          { type: 'COLLISION', included: true, premium: 525.94 },
          { type: 'COMPREHENSIVE', included: true, premium: 150 },
        ],
      },
    },
  ],
  [
    {
      name: 'coverageType outside LIABILITY|STANDARD|COMPREHENSIVE',
      vars: { driver: steadyDriver, vehicle: familyCar, coverageType: 'PLATINUM' },
      code: 'PL3004',
      message: '`coverageType` must be one of LIABILITY, STANDARD, COMPREHENSIVE',
    },
    {
      name: 'usage outside PERSONAL|COMMUTE|BUSINESS',
      vars: { driver: steadyDriver, vehicle: { ...familyCar, usage: 'RACING' }, coverageType: 'LIABILITY' },
      code: 'PL3004',
      message: '`usage` must be one of PERSONAL, COMMUTE, BUSINESS',
    },
    {
      name: 'driver under 16',
      vars: { driver: { ...steadyDriver, age: 15 }, vehicle: familyCar, coverageType: 'LIABILITY' },
      code: 'PL3004',
      message: 'driver must be at least 16',
    },
  ],
);

// ── healthcare.eligibility ──────────────────────────────────────────────────────────────────────
const service = (category: string, requiresPreAuth = false, preAuthObtained = false) => ({
  serviceCode: `SVC-${category}`,
  category,
  requiresPreAuth,
  preAuthObtained,
});
const patient = (insuranceType: string, age = 40, hasReferral = false) => ({ age, insuranceType, chronicConditions: 1, hasReferral });

tableFor(
  'checkServiceEligibility',
  [
    {
      name: 'STANDARD without a referral asks for a specialist',
      vars: { patient: patient('STANDARD'), service: service('SPECIALIST') },
      expected: {
        eligible: false,
        reason: 'specialist visits need a referral',
        eligibleServices: ['PREVENTIVE', 'PRIMARY', 'IMAGING'],
        ineligibleServices: [
          { service: 'SPECIALIST', reason: 'specialist visits need a referral' },
          { service: 'SURGERY', reason: 'not covered by STANDARD plan' },
          { service: 'EXPERIMENTAL', reason: 'experimental services are not covered' },
        ],
      },
    },
    {
      name: 'PREMIUM surgery without the pre-authorization it needs',
      vars: { patient: patient('PREMIUM'), service: service('SURGERY', true, false) },
      expected: {
        eligible: false,
        reason: 'pre-authorization required',
        eligibleServices: ['PREVENTIVE', 'PRIMARY', 'SPECIALIST', 'IMAGING', 'SURGERY'],
        ineligibleServices: [{ service: 'EXPERIMENTAL', reason: 'experimental services are not covered' }],
      },
    },
    {
      name: 'PREMIUM surgery with pre-authorization',
      vars: { patient: patient('PREMIUM'), service: service('SURGERY', true, true) },
      expected: {
        eligible: true,
        reason: 'covered by PREMIUM plan',
        eligibleServices: ['PREVENTIVE', 'PRIMARY', 'SPECIALIST', 'IMAGING', 'SURGERY'],
        ineligibleServices: [{ service: 'EXPERIMENTAL', reason: 'experimental services are not covered' }],
      },
    },
    {
      name: 'no coverage at all',
      vars: { patient: patient('NONE', 40, true), service: service('PRIMARY') },
      expected: {
        eligible: false,
        reason: 'no active coverage',
        eligibleServices: [],
        ineligibleServices: [
          { service: 'PREVENTIVE', reason: 'no active coverage' },
          { service: 'PRIMARY', reason: 'no active coverage' },
          { service: 'SPECIALIST', reason: 'no active coverage' },
          { service: 'IMAGING', reason: 'no active coverage' },
          { service: 'SURGERY', reason: 'no active coverage' },
          { service: 'EXPERIMENTAL', reason: 'experimental services are not covered' },
        ],
      },
    },
    {
      name: 'a child on BASIC: preventive care yes, imaging no',
      vars: { patient: patient('BASIC', 10, true), service: service('IMAGING') },
      expected: {
        eligible: false,
        reason: 'not covered by BASIC plan',
        eligibleServices: ['PREVENTIVE', 'PRIMARY'],
        ineligibleServices: [
          { service: 'SPECIALIST', reason: 'not covered by BASIC plan' },
          { service: 'IMAGING', reason: 'not covered by BASIC plan' },
          { service: 'SURGERY', reason: 'not covered by BASIC plan' },
          { service: 'EXPERIMENTAL', reason: 'experimental services are not covered' },
        ],
      },
    },
  ],
  [
    {
      name: 'unknown category',
      vars: { patient: patient('BASIC'), service: service('DENTAL') },
      code: 'PL3004',
      message: '`category` must be one of PREVENTIVE, PRIMARY, SPECIALIST, IMAGING, SURGERY, EXPERIMENTAL',
    },
    {
      name: 'insuranceType outside NONE|BASIC|STANDARD|PREMIUM',
      vars: { patient: patient('GOLD'), service: service('PRIMARY') },
      code: 'PL3004',
      message: '`insuranceType` must be one of NONE, BASIC, STANDARD, PREMIUM',
    },
  ],
);

// ── healthcare.claims ───────────────────────────────────────────────────────────────────────────
const claim = (overrides: Vars = {}) => ({
  claimId: 'C-1',
  amount: 500.0,
  category: 'PRIMARY',
  diagnosisCode: 'J10',
  hasDocumentation: true,
  daysSinceService: 10,
  ...overrides,
});
const inNetwork = { providerId: 'P-1', inNetwork: true, qualityScore: 80 };
const outOfNetwork = { providerId: 'P-2', inNetwork: false, qualityScore: 60 };

tableFor(
  'processClaim',
  [
    {
      name: 'in network at 80%: approved, no denial reason (null, not "")',
      vars: { claim: claim(), provider: inNetwork, patientCoverage: 80 },
      expected: { approved: true, approvedAmount: 400, denialReason: null, requiredDocuments: [], referenceNumber: 'CLM-C-1' },
    },
    {
      // 70 − 20 out of network = 50%: 12000.5 × 0.5 = 6000.25
      name: 'out of network surgery over 10000',
      vars: { claim: claim({ claimId: 'C-2', amount: 12000.5, category: 'SURGERY' }), provider: outOfNetwork, patientCoverage: 70 },
      expected: {
        approved: true,
        approvedAmount: 6000.25,
        denialReason: null,
        requiredDocuments: ['itemized bill', 'operative report'],
        referenceNumber: 'CLM-C-2',
      },
    },
    {
      name: 'capped at 50000',
      vars: { claim: claim({ claimId: 'C-3', amount: 200000 }), provider: inNetwork, patientCoverage: 100 },
      expected: { approved: true, approvedAmount: 50000, denialReason: null, requiredDocuments: ['itemized bill'], referenceNumber: 'CLM-C-3' },
    },
    {
      name: 'filed late: the first denial reason wins',
      vars: { claim: claim({ amount: 2000, hasDocumentation: false, daysSinceService: 400 }), provider: inNetwork, patientCoverage: 0 },
      expected: {
        approved: false,
        approvedAmount: 0,
        denialReason: 'filed more than 365 days after service',
        requiredDocuments: ['proof of service'],
        referenceNumber: 'CLM-C-1',
      },
    },
    {
      name: 'no coverage',
      vars: { claim: claim(), provider: inNetwork, patientCoverage: 0 },
      expected: { approved: false, approvedAmount: 0, denialReason: 'no coverage', requiredDocuments: [], referenceNumber: 'CLM-C-1' },
    },
    {
      name: 'missing diagnosis code',
      vars: { claim: claim({ diagnosisCode: '' }), provider: inNetwork, patientCoverage: 80 },
      expected: { approved: false, approvedAmount: 0, denialReason: 'missing diagnosis code', requiredDocuments: [], referenceNumber: 'CLM-C-1' },
    },
    {
      name: 'undocumented claim over 1000',
      vars: { claim: claim({ amount: 1500, hasDocumentation: false }), provider: inNetwork, patientCoverage: 80 },
      expected: {
        approved: false,
        approvedAmount: 0,
        denialReason: 'documentation required for claims over 1000',
        requiredDocuments: ['proof of service'],
        referenceNumber: 'CLM-C-1',
      },
    },
    {
      name: 'out of network at 20% leaves nothing: no coverage',
      vars: { claim: claim(), provider: outOfNetwork, patientCoverage: 20 },
      expected: { approved: false, approvedAmount: 0, denialReason: 'no coverage', requiredDocuments: [], referenceNumber: 'CLM-C-1' },
    },
  ],
  [
    {
      name: 'patientCoverage above 100',
      vars: { claim: claim(), provider: inNetwork, patientCoverage: 101 },
      code: 'PL3004',
      message: '`patientCoverage` must be between 0 and 100',
    },
  ],
);

// ── lending.loan ────────────────────────────────────────────────────────────────────────────────
tableFor('evaluateLoanEligibility', [
  {
    // dti 500 / 5000 = 0.1; rate 7.0; cap 60000 × 0.6 = 36000
    name: 'good applicant, small loan',
    vars: {
      application: { requestedAmount: 10000, termMonths: 24, purpose: 'CAR' },
      applicant: { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 },
    },
    expected: { eligible: true, maxApprovedAmount: 10000, interestRate: 7, term: 24, conditions: [], rejectionReasons: [] },
  },
  {
    // dti 1600 / 4000 = 0.4: rate 9.5 + 1.0; cap 48000 × 0.4 = 19200
    name: 'heavier debt, business purpose, amount over the cap',
    vars: {
      application: { requestedAmount: 50000, termMonths: 60, purpose: 'BUSINESS' },
      applicant: { age: 45, annualIncome: 48000, creditScore: 660, monthlyDebt: 1600, yearsEmployed: 5 },
    },
    expected: {
      eligible: true,
      maxApprovedAmount: 19200,
      interestRate: 10.5,
      term: 60,
      conditions: ['proof of income required', 'amount reduced to maximum', 'business plan required'],
      rejectionReasons: [],
    },
  },
  {
    name: 'excellent score: 5.5%',
    vars: {
      application: { requestedAmount: 5000, termMonths: 12, purpose: 'HOME' },
      applicant: { age: 50, annualIncome: 100000, creditScore: 780, monthlyDebt: 0, yearsEmployed: 10 },
    },
    expected: { eligible: true, maxApprovedAmount: 5000, interestRate: 5.5, term: 12, conditions: [], rejectionReasons: [] },
  },
  {
    name: 'score 620: 12.5%',
    vars: {
      application: { requestedAmount: 8000, termMonths: 36, purpose: 'CAR' },
      applicant: { age: 25, annualIncome: 30000, creditScore: 620, monthlyDebt: 0, yearsEmployed: 2 },
    },
    expected: { eligible: true, maxApprovedAmount: 8000, interestRate: 12.5, term: 36, conditions: [], rejectionReasons: [] },
  },
  {
    name: 'every reason at once (no dti without income)',
    vars: {
      application: { requestedAmount: 1000, termMonths: 90, purpose: 'CAR' },
      applicant: { age: 17, annualIncome: 0, creditScore: 550, monthlyDebt: 100, yearsEmployed: 0 },
    },
    expected: {
      eligible: false,
      maxApprovedAmount: 0,
      interestRate: 0,
      term: 90,
      conditions: [],
      rejectionReasons: [
        'applicant under 18',
        'no income',
        'credit score below 600',
        'less than 1 year of employment',
        'term must be 6 to 84 months',
      ],
    },
  },
  {
    name: 'debt-to-income 0.5',
    vars: {
      application: { requestedAmount: 5000, termMonths: 24, purpose: 'CAR' },
      applicant: { age: 40, annualIncome: 24000, creditScore: 700, monthlyDebt: 1000, yearsEmployed: 4 },
    },
    expected: {
      eligible: false,
      maxApprovedAmount: 0,
      interestRate: 0,
      term: 24,
      conditions: [],
      rejectionReasons: ['debt-to-income above 45%'],
    },
  },
]);

// ── lending.creditcard ──────────────────────────────────────────────────────────────────────────
const cleanHistory = { bankruptcies: 0, latePayments12m: 0, utilizationPercent: 20, accountAgeYears: 10, hardInquiries6m: 1 };

tableFor(
  'evaluateCreditCardApplication',
  [
    {
      // limit min(50000, 120000 × 0.3) = 36000
      name: 'PREMIUM granted',
      vars: {
        applicant: { age: 35, annualIncome: 120000, creditScore: 780, employmentStatus: 'EMPLOYED', monthlyHousingCost: 2000 },
        history: cleanHistory,
        offer: { productType: 'PREMIUM', requestedLimit: 50000 },
      },
      expected: { approved: true, creditLimit: 36000, interestRate: 16.99, cardType: 'PREMIUM', conditions: [], rejectionReasons: [] },
    },
    {
      // PREMIUM → REWARDS (score under 740); limit min(20000, 60000 × 0.2) = 12000; 19.99 + 2.0
      name: 'PREMIUM downgraded to REWARDS, many inquiries, high utilization',
      vars: {
        applicant: { age: 28, annualIncome: 60000, creditScore: 700, employmentStatus: 'EMPLOYED', monthlyHousingCost: 1000 },
        history: { bankruptcies: 0, latePayments12m: 1, utilizationPercent: 60, accountAgeYears: 3, hardInquiries6m: 4 },
        offer: { productType: 'PREMIUM', requestedLimit: 20000 },
      },
      expected: {
        approved: true,
        creditLimit: 12000,
        interestRate: 21.99,
        cardType: 'REWARDS',
        conditions: ['offered REWARDS instead of PREMIUM', 'limit review after 6 months'],
        rejectionReasons: [],
      },
    },
    {
      // score under 620: SECURED; limit min(5000, 20000 × 0.05) = 1000
      name: 'SECURED for a thin score',
      vars: {
        applicant: { age: 22, annualIncome: 20000, creditScore: 600, employmentStatus: 'STUDENT', monthlyHousingCost: 300 },
        history: { ...cleanHistory, utilizationPercent: 30, accountAgeYears: 1, hardInquiries6m: 0 },
        offer: { productType: 'BASIC', requestedLimit: 5000 },
      },
      expected: {
        approved: true,
        creditLimit: 1000,
        interestRate: 24.99,
        cardType: 'SECURED',
        conditions: ['security deposit equal to the limit'],
        rejectionReasons: [],
      },
    },
    {
      name: 'rejected for four reasons (housing is not checked under 12000 income)',
      vars: {
        applicant: { age: 17, annualIncome: 10000, creditScore: 500, employmentStatus: 'STUDENT', monthlyHousingCost: 1000 },
        history: { ...cleanHistory, bankruptcies: 1 },
        offer: { productType: 'BASIC', requestedLimit: 1000 },
      },
      expected: {
        approved: false,
        creditLimit: 0,
        interestRate: 0,
        cardType: 'NONE',
        conditions: [],
        rejectionReasons: ['applicant under 18', 'bankruptcy on record', 'credit score below 550', 'income below 12000'],
      },
    },
    {
      name: 'housing above half of income',
      vars: {
        applicant: { age: 30, annualIncome: 24000, creditScore: 700, employmentStatus: 'EMPLOYED', monthlyHousingCost: 1100 },
        history: cleanHistory,
        offer: { productType: 'BASIC', requestedLimit: 1000 },
      },
      expected: {
        approved: false,
        creditLimit: 0,
        interestRate: 0,
        cardType: 'NONE',
        conditions: [],
        rejectionReasons: ['housing cost above 50% of income'],
      },
    },
  ],
  [
    {
      name: 'employmentStatus outside its values',
      vars: {
        applicant: { age: 30, annualIncome: 50000, creditScore: 700, employmentStatus: 'PIRATE', monthlyHousingCost: 500 },
        history: cleanHistory,
        offer: { productType: 'BASIC', requestedLimit: 1000 },
      },
      code: 'PL3004',
      message: '`employmentStatus` must be one of EMPLOYED, SELF_EMPLOYED, STUDENT, RETIRED, UNEMPLOYED',
    },
    {
      name: 'productType outside BASIC|REWARDS|PREMIUM',
      vars: {
        applicant: { age: 30, annualIncome: 50000, creditScore: 700, employmentStatus: 'EMPLOYED', monthlyHousingCost: 500 },
        history: cleanHistory,
        offer: { productType: 'BLACK', requestedLimit: 1000 },
      },
      code: 'PL3004',
      message: '`productType` must be one of BASIC, REWARDS, PREMIUM',
    },
  ],
);

// ── lending.enterprise ──────────────────────────────────────────────────────────────────────────
tableFor('evaluateEnterpriseLoan', [
  {
    // score 50 + 15 + 10 + 10 + 20 + 5 = 110; capacity 100000 × 36 × 0.5 = 1.8M
    name: 'strong technology company',
    vars: {
      enterprise: { name: 'Acme', industry: 'TECHNOLOGY', yearsInBusiness: 8, employees: 50, annualRevenue: 5000000, profitMarginPercent: 12.5 },
      position: { totalAssets: 3000000, totalLiabilities: 1000000, currentAssets: 800000, currentLiabilities: 300000, monthlyCashFlow: 100000 },
      history: { previousDefaults: 0, latePayments: 0, relationshipYears: 5 },
      application: { requestedAmount: 500000, termMonths: 36, collateralValue: 400000, purpose: 'EXPANSION' },
    },
    expected: { eligible: true, approvedAmount: 500000, interestRate: 6, collateralRequired: false, conditions: [], rejectionReasons: [] },
  },
  {
    // score 50 + 5 − 5 − 10 = 40; capacity 20000 × 24 × 0.5 = 240000; collateral 100000 < 120000
    name: 'construction firm limited by repayment capacity',
    vars: {
      enterprise: { name: 'Build', industry: 'CONSTRUCTION', yearsInBusiness: 3, employees: 20, annualRevenue: 1000000, profitMarginPercent: 5.0 },
      position: { totalAssets: 1000000, totalLiabilities: 600000, currentAssets: 200000, currentLiabilities: 150000, monthlyCashFlow: 20000 },
      history: { previousDefaults: 0, latePayments: 1, relationshipYears: 1 },
      application: { requestedAmount: 600000, termMonths: 24, collateralValue: 100000, purpose: 'EQUIPMENT' },
    },
    expected: {
      eligible: true,
      approvedAmount: 240000,
      interestRate: 12,
      collateralRequired: true,
      conditions: [
        'amount limited by repayment capacity',
        'collateral of at least 50% of the amount required',
        'quarterly financial statements',
      ],
      rejectionReasons: [],
    },
  },
  {
    name: 'five reasons',
    vars: {
      enterprise: { name: 'New', industry: 'RETAIL', yearsInBusiness: 1, employees: 3, annualRevenue: 100000, profitMarginPercent: 0 },
      position: { totalAssets: 100000, totalLiabilities: 200000, currentAssets: 50000, currentLiabilities: 100000, monthlyCashFlow: -5000 },
      history: { previousDefaults: 1, latePayments: 0, relationshipYears: 0 },
      application: { requestedAmount: 50000, termMonths: 12, collateralValue: 0, purpose: 'WORKING_CAPITAL' },
    },
    expected: {
      eligible: false,
      approvedAmount: 0,
      interestRate: 0,
      collateralRequired: false,
      conditions: [],
      rejectionReasons: [
        'less than 2 years in business',
        'previous default',
        'negative equity',
        'current ratio below 1.0',
        'negative cash flow',
      ],
    },
  },
  {
    // score 50 − 10 (leverage 4) − 10 (2 late payments) − 10 (HOSPITALITY) = 20
    name: 'risk score too low',
    vars: {
      enterprise: { name: 'Inn', industry: 'HOSPITALITY', yearsInBusiness: 5, employees: 12, annualRevenue: 800000, profitMarginPercent: 2 },
      position: { totalAssets: 1000000, totalLiabilities: 800000, currentAssets: 150000, currentLiabilities: 140000, monthlyCashFlow: 10000 },
      history: { previousDefaults: 0, latePayments: 2, relationshipYears: 0 },
      application: { requestedAmount: 100000, termMonths: 24, collateralValue: 50000, purpose: 'RENOVATION' },
    },
    expected: {
      eligible: false,
      approvedAmount: 0,
      interestRate: 0,
      collateralRequired: false,
      conditions: [],
      rejectionReasons: ['risk score too low'],
    },
  },
]);

// ── lending.personal ────────────────────────────────────────────────────────────────────────────
tableFor(
  'evaluatePersonalLoan',
  [
    {
      // 8.9%, 48 months: pay(20000) = 496.7517…; (500 + 496.75) / 6000 = 0.17
      name: 'affordable loan at 8.9%',
      vars: {
        personal: { name: 'Pat', age: 35, employmentYears: 8, dependents: 1 },
        income: { annualIncome: 72000, employmentType: 'PERMANENT' },
        credit: { creditScore: 720, latePayments: 0, defaults: 0 },
        debt: { totalMonthlyDebt: 500 },
        request: { requestedAmount: 20000, requestedTermMonths: 48, purpose: 'CAR' },
      },
      expected: {
        eligible: true,
        approvedAmount: 20000,
        interestRate: 8.9,
        monthlyRepayment: 496.75,
        term: 48,
        conditions: [],
        rejectionReasons: [],
      },
    },
    {
      // 11.9 + 1.0 (CONTRACT) + 1.0 (2 late payments) = 13.9%; pay(40000) = 928.66 makes dti 0.58,
      // so maxPrincipal = floor((1500 − 800) × annuity(60) / 100) × 100 = 30100, repaid 698.81
      name: 'amount reduced to keep debt-to-income at 50%',
      vars: {
        personal: { name: 'Sam', age: 30, employmentYears: 2, dependents: 3 },
        income: { annualIncome: 36000, employmentType: 'CONTRACT' },
        credit: { creditScore: 650, latePayments: 2, defaults: 0 },
        debt: { totalMonthlyDebt: 800 },
        request: { requestedAmount: 40000, requestedTermMonths: 60, purpose: 'DEBT_CONSOLIDATION' },
      },
      expected: {
        eligible: true,
        approvedAmount: 30100,
        interestRate: 13.9,
        monthlyRepayment: 698.81,
        term: 60,
        conditions: ['amount reduced to keep debt-to-income at 50%', 'budget review', 'existing debts paid directly to creditors'],
        rejectionReasons: [],
      },
    },
    {
      name: 'debt-to-income too high to lend anything',
      vars: {
        personal: { name: 'Lee', age: 40, employmentYears: 10, dependents: 0 },
        income: { annualIncome: 24000, employmentType: 'PERMANENT' },
        credit: { creditScore: 700, latePayments: 0, defaults: 0 },
        debt: { totalMonthlyDebt: 1900 },
        request: { requestedAmount: 10000, requestedTermMonths: 36, purpose: 'CAR' },
      },
      expected: {
        eligible: false,
        approvedAmount: 0,
        interestRate: 0,
        monthlyRepayment: 0,
        term: 36,
        conditions: [],
        rejectionReasons: ['debt-to-income too high'],
      },
    },
    {
      name: 'four reasons',
      vars: {
        personal: { name: 'Old', age: 75, employmentYears: 0, dependents: 0 },
        income: { annualIncome: 20000, employmentType: 'UNEMPLOYED' },
        credit: { creditScore: 550, latePayments: 0, defaults: 1 },
        debt: { totalMonthlyDebt: 0 },
        request: { requestedAmount: 5000, requestedTermMonths: 72, purpose: 'TRAVEL' },
      },
      expected: {
        eligible: false,
        approvedAmount: 0,
        interestRate: 0,
        monthlyRepayment: 0,
        term: 72,
        conditions: [],
        rejectionReasons: ['loan would run past age 80', 'no employment income', 'credit score below 580', 'default on record'],
      },
    },
  ],
  [
    {
      name: 'employmentType outside its values',
      vars: {
        personal: { name: 'Pat', age: 35, employmentYears: 8, dependents: 1 },
        income: { annualIncome: 72000, employmentType: 'FREELANCE' },
        credit: { creditScore: 720, latePayments: 0, defaults: 0 },
        debt: { totalMonthlyDebt: 500 },
        request: { requestedAmount: 20000, requestedTermMonths: 48, purpose: 'CAR' },
      },
      code: 'PL3004',
      message: '`employmentType` must be one of PERMANENT, CONTRACT, SELF_EMPLOYED, UNEMPLOYED',
    },
  ],
);
