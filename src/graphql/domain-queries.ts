/**
 * The domain decisions: each root field is one rule of one policy module, called with the field's
 * arguments as separate parameters in the order the schema declares them.
 */
export interface DomainQuery {
  policyModule: string;
  /** Turns the rule's value into the GraphQL result where the two differ. */
  adapt?: (value: Record<string, unknown>) => Record<string, unknown>;
}

/** The policy says "no denial" with "" (its Text cannot be absent); the schema says it with null. */
function denialReasonNullWhenEmpty(value: Record<string, unknown>): Record<string, unknown> {
  return value.denialReason === '' ? { ...value, denialReason: null } : value;
}

export const DOMAIN_QUERIES: Readonly<Record<string, DomainQuery>> = {
  generateLifeQuote: { policyModule: 'insurance.life' },
  calculateLifeRiskScore: { policyModule: 'insurance.life' },
  generateAutoQuote: { policyModule: 'insurance.auto' },
  checkServiceEligibility: { policyModule: 'healthcare.eligibility' },
  processClaim: { policyModule: 'healthcare.claims', adapt: denialReasonNullWhenEmpty },
  evaluateLoanEligibility: { policyModule: 'lending.loan' },
  evaluateCreditCardApplication: { policyModule: 'lending.creditcard' },
  evaluateEnterpriseLoan: { policyModule: 'lending.enterprise' },
  evaluatePersonalLoan: { policyModule: 'lending.personal' },
};

export function isDomainQuery(fieldName: string): boolean {
  return Object.hasOwn(DOMAIN_QUERIES, fieldName);
}
