// The GraphQL decision the benchmarks send: a query of the built-in lending library (GraphQL serves
// the built-in decisions, not arbitrary rules), with three applications in rotation.
export const GRAPHQL_QUERY = `query Loan($application: LoanApplication!, $applicant: LoanApplicant!) {
  evaluateLoanEligibility(application: $application, applicant: $applicant) { eligible maxApprovedAmount interestRate term conditions rejectionReasons }
}`;

export const GRAPHQL_SAMPLES = [
  [{ requestedAmount: 10000, termMonths: 24, purpose: 'CAR' }, { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 }],
  [{ requestedAmount: 50000, termMonths: 60, purpose: 'BUSINESS' }, { age: 45, annualIncome: 48000, creditScore: 660, monthlyDebt: 1600, yearsEmployed: 5 }],
  [{ requestedAmount: 1000, termMonths: 90, purpose: 'CAR' }, { age: 17, annualIncome: 0, creditScore: 550, monthlyDebt: 100, yearsEmployed: 0 }],
];
