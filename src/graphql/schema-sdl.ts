import { POLICY_PAGE_DEFAULT_SIZE, POLICY_PAGE_MAX_SIZE } from '../policies/index.js';

/**
 * The endpoint's schema in SDL. Object and input types are docs/domain.md's, field for field. Root
 * fields: `getPolicy` as the spec gives it, `listPolicies` with optional paging arguments (called
 * without them, as the spec does, it answers the first page); the nine domain decisions are
 * nullable at the root (src/graphql/README.md, "Nullability"): a `!` there would turn one failed
 * decision into `data: null` and wipe every other root field of the request.
 */
export const SCHEMA_SDL = /* GraphQL */ `
"""
Read-only: policy lookups (role VIEWER) and domain decisions (role MEMBER). A decision is
evaluated by the tenant's active version of its policy module, or the built-in one.
"""
type Query {
  "A policy of the caller's tenant; null when the tenant has no policy with this id."
  getPolicy(id: ID!): Policy
  """
  A page of the policies the caller's tenant sees: the built-in ones first, then its own, by
  module, version and rule. \`page\` counts from 0; \`size\` is 1 to ${POLICY_PAGE_MAX_SIZE}.
  Each \`source\` is its version's, and costs more than other fields (see the cost limit).
  """
  listPolicies(page: Int = 0, size: Int = ${POLICY_PAGE_DEFAULT_SIZE}): [Policy!]!
  "insurance.life.generateLifeQuote; null with an error when the evaluation fails."
  generateLifeQuote(applicant: LifeInsuranceApplicant!, request: LifeInsurancePolicyRequest!): LifeQuote
  "insurance.life.calculateLifeRiskScore; null with an error when the evaluation fails."
  calculateLifeRiskScore(applicant: LifeInsuranceApplicant!): LifeRiskScore
  "insurance.auto.generateAutoQuote; null with an error when the evaluation fails."
  generateAutoQuote(driver: AutoInsuranceDriver!, vehicle: AutoInsuranceVehicle!, coverageType: String!): AutoQuote
  "healthcare.eligibility.checkServiceEligibility; null with an error when the evaluation fails."
  checkServiceEligibility(patient: HealthcarePatient!, service: HealthcareService!): ServiceEligibility
  "healthcare.claims.processClaim; null with an error when the evaluation fails."
  processClaim(claim: HealthcareClaim!, provider: HealthcareProvider!, patientCoverage: Int!): ClaimDecision
  "lending.loan.evaluateLoanEligibility; null with an error when the evaluation fails."
  evaluateLoanEligibility(application: LoanApplication!, applicant: LoanApplicant!): LoanEligibility
  "lending.creditcard.evaluateCreditCardApplication; null with an error when the evaluation fails."
  evaluateCreditCardApplication(
    applicant: CreditCardApplicantInfo!
    history: CreditCardFinancialHistory!
    offer: CreditCardOffer!
  ): CreditCardDecision
  "lending.enterprise.evaluateEnterpriseLoan; null with an error when the evaluation fails."
  evaluateEnterpriseLoan(
    enterprise: EnterpriseInfo!
    position: FinancialPosition!
    history: BusinessHistory!
    application: EnterpriseLoanApplication!
  ): EnterpriseLoanDecision
  "lending.personal.evaluatePersonalLoan; null with an error when the evaluation fails."
  evaluatePersonalLoan(
    personal: PersonalInfo!
    income: IncomeProfile!
    credit: CreditProfile!
    debt: DebtProfile!
    request: PersonalLoanRequest!
  ): PersonalLoanDecision
}

type Policy { id: ID!, policyModule: String!, policyFunction: String!, version: Int!,
  status: PolicyStatus!, createdAt: String!, updatedAt: String!, source: String! }
enum PolicyStatus { ACTIVE SUPERSEDED RETIRED }

input LifeInsuranceApplicant { name: String!, age: Int!, smoker: Boolean!, bmi: Float!,
  healthScore: Int!, occupationRisk: String!, familyHistory: Boolean! }
input LifeInsurancePolicyRequest { coverageAmount: Int!, termYears: Int!, policyType: String! }
type LifeQuote { premium: Float!, coverageAmount: Int!, term: Int!, eligibility: String!, exclusions: [String!]! }
type LifeRiskScore { score: Int!, band: String!, factors: [String!]! }

input AutoInsuranceDriver { age: Int!, yearsLicensed: Int!, accidents: Int!, violations: Int!, creditScore: Int! }
input AutoInsuranceVehicle { ageYears: Int!, value: Int!, safetyRating: Int!, usage: String! }
type CoverageOption { type: String!, included: Boolean!, premium: Float! }
type AutoQuote { annualPremium: Float!, monthlyPremium: Float!, coverageOptions: [CoverageOption!]! }

input HealthcarePatient { age: Int!, insuranceType: String!, chronicConditions: Int!, hasReferral: Boolean! }
input HealthcareService { serviceCode: String!, category: String!, requiresPreAuth: Boolean!, preAuthObtained: Boolean! }
type IneligibleService { service: String!, reason: String! }
type ServiceEligibility { eligible: Boolean!, reason: String!, eligibleServices: [String!]!, ineligibleServices: [IneligibleService!]! }

input HealthcareClaim { claimId: String!, amount: Float!, category: String!, diagnosisCode: String!,
  hasDocumentation: Boolean!, daysSinceService: Int! }
input HealthcareProvider { providerId: String!, inNetwork: Boolean!, qualityScore: Int! }
type ClaimDecision { approved: Boolean!, approvedAmount: Float!, denialReason: String,
  requiredDocuments: [String!]!, referenceNumber: String! }

input LoanApplication { requestedAmount: Int!, termMonths: Int!, purpose: String! }
input LoanApplicant { age: Int!, annualIncome: Int!, creditScore: Int!, monthlyDebt: Int!, yearsEmployed: Int! }
type LoanEligibility { eligible: Boolean!, maxApprovedAmount: Int!, interestRate: Float!, term: Int!,
  conditions: [String!]!, rejectionReasons: [String!]! }

input CreditCardApplicantInfo { age: Int!, annualIncome: Int!, creditScore: Int!, employmentStatus: String!,
  monthlyHousingCost: Int! }
input CreditCardFinancialHistory { bankruptcies: Int!, latePayments12m: Int!, utilizationPercent: Int!,
  accountAgeYears: Int!, hardInquiries6m: Int! }
input CreditCardOffer { productType: String!, requestedLimit: Int! }
type CreditCardDecision { approved: Boolean!, creditLimit: Int!, interestRate: Float!, cardType: String!,
  conditions: [String!]!, rejectionReasons: [String!]! }

input EnterpriseInfo { name: String!, industry: String!, yearsInBusiness: Int!, employees: Int!,
  annualRevenue: Int!, profitMarginPercent: Float! }
input FinancialPosition { totalAssets: Int!, totalLiabilities: Int!, currentAssets: Int!,
  currentLiabilities: Int!, monthlyCashFlow: Int! }
input BusinessHistory { previousDefaults: Int!, latePayments: Int!, relationshipYears: Int! }
input EnterpriseLoanApplication { requestedAmount: Int!, termMonths: Int!, collateralValue: Int!, purpose: String! }
type EnterpriseLoanDecision { eligible: Boolean!, approvedAmount: Int!, interestRate: Float!,
  collateralRequired: Boolean!, conditions: [String!]!, rejectionReasons: [String!]! }

input PersonalInfo { name: String!, age: Int!, employmentYears: Int!, dependents: Int! }
input IncomeProfile { annualIncome: Int!, employmentType: String! }
input CreditProfile { creditScore: Int!, latePayments: Int!, defaults: Int! }
input DebtProfile { totalMonthlyDebt: Int! }
input PersonalLoanRequest { requestedAmount: Int!, requestedTermMonths: Int!, purpose: String! }
type PersonalLoanDecision { eligible: Boolean!, approvedAmount: Int!, interestRate: Float!,
  monthlyRepayment: Float!, term: Int!, conditions: [String!]!, rejectionReasons: [String!]! }
`;
