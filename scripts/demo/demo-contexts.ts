/**
 * The demo's inputs, made from a running number so every run sends the same ones: loan
 * applicants (one in four in their first year of employment, which version 2 of `lending.demo`
 * fails on), claim histories (short ones for the baseline, long ones for the slow traffic) and
 * drivers.
 */

/** Claims in a history of today's traffic: the duplicate check compares each with every other. */
export const LONG_HISTORY_CLAIMS = 150;
/** Claims in a history of the baseline traffic. */
export const SHORT_HISTORY_CLAIMS = 3;

const SERVICE_CODES = ['LAB', 'X-RAY', 'MRI', 'CONSULT', 'PHYSIO'] as const;
const PLANS = ['Gold', 'Silver', 'Bronze'] as const;

export function loanContext(n: number) {
  return {
    applicant: {
      age: 21 + (n % 45),
      annualIncome: 28_000 + ((n * 7_919) % 90_000),
      creditScore: 610 + ((n * 37) % 220),
      monthlyDebt: (n * 131) % 1_500,
      // Every fourth applicant is in their first year.
      yearsEmployed: n % 4 === 0 ? 0 : 1 + (n % 15),
    },
    amount: 5_000 + ((n * 2_503) % 40_000),
  };
}

export function claimsContext(n: number, claims: number) {
  return {
    plan: PLANS[n % PLANS.length]!,
    claims: Array.from({ length: claims }, (_, i) => ({
      serviceCode: SERVICE_CODES[(n + i) % SERVICE_CODES.length]!,
      // Days repeat now and then, so a few claims are duplicates.
      serviceDay: 1 + ((n * 7 + i * 11) % 200),
      amount: 80 + ((n + i * 13) % 900),
    })),
  };
}

export function driverContext(n: number, options: { eligible: boolean } = { eligible: true }) {
  return {
    driver: {
      name: `Driver ${n}`,
      age: 19 + (n % 50),
      claimsLastFiveYears: options.eligible ? n % 3 : 5,
      vehicleValue: 8_000 + ((n * 1_733) % 40_000),
    },
  };
}
