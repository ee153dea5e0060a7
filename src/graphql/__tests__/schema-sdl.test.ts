import { buildSchema, printType, type GraphQLNamedType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createGraphqlSchema } from '../create-graphql-schema.js';

/** DOMAIN.md's schema block, verbatim: the contract the endpoint's types must match field for field. */
const DOMAIN_SDL = /* GraphQL */ `
type Policy { id: ID!, policyModule: String!, policyFunction: String!, version: Int!,
  status: PolicyStatus!, createdAt: String!, updatedAt: String!, source: String! }
enum PolicyStatus { ACTIVE SUPERSEDED RETIRED }

input LifeInsuranceApplicant { name: String!, age: Int!, smoker: Boolean!, bmi: Float!,
  healthScore: Int!, occupationRisk: String!, familyHistory: Boolean! }   # occupationRisk LOW|MEDIUM|HIGH
input LifeInsurancePolicyRequest { coverageAmount: Int!, termYears: Int!, policyType: String! }  # TERM|WHOLE
type LifeQuote { premium: Float!, coverageAmount: Int!, term: Int!, eligibility: String!, exclusions: [String!]! }
type LifeRiskScore { score: Int!, band: String!, factors: [String!]! }

input AutoInsuranceDriver { age: Int!, yearsLicensed: Int!, accidents: Int!, violations: Int!, creditScore: Int! }
input AutoInsuranceVehicle { ageYears: Int!, value: Int!, safetyRating: Int!, usage: String! }  # PERSONAL|COMMUTE|BUSINESS
type CoverageOption { type: String!, included: Boolean!, premium: Float! }
type AutoQuote { annualPremium: Float!, monthlyPremium: Float!, coverageOptions: [CoverageOption!]! }

input HealthcarePatient { age: Int!, insuranceType: String!, chronicConditions: Int!, hasReferral: Boolean! }  # NONE|BASIC|STANDARD|PREMIUM
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
  monthlyHousingCost: Int! }   # EMPLOYED|SELF_EMPLOYED|STUDENT|RETIRED|UNEMPLOYED
input CreditCardFinancialHistory { bankruptcies: Int!, latePayments12m: Int!, utilizationPercent: Int!,
  accountAgeYears: Int!, hardInquiries6m: Int! }
input CreditCardOffer { productType: String!, requestedLimit: Int! }   # BASIC|REWARDS|PREMIUM
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
input IncomeProfile { annualIncome: Int!, employmentType: String! }  # PERMANENT|CONTRACT|SELF_EMPLOYED|UNEMPLOYED
input CreditProfile { creditScore: Int!, latePayments: Int!, defaults: Int! }
input DebtProfile { totalMonthlyDebt: Int! }
input PersonalLoanRequest { requestedAmount: Int!, requestedTermMonths: Int!, purpose: String! }
type PersonalLoanDecision { eligible: Boolean!, approvedAmount: Int!, interestRate: Float!,
  monthlyRepayment: Float!, term: Int!, conditions: [String!]!, rejectionReasons: [String!]! }

type Query { placeholder: Boolean }
`;

const domain = buildSchema(DOMAIN_SDL);
const schema = createGraphqlSchema();
const userTypes = (types: Record<string, GraphQLNamedType>) =>
  Object.keys(types).filter((name) => !name.startsWith('__') && !['String', 'Int', 'Float', 'Boolean', 'ID', 'Query'].includes(name));

describe('the schema', () => {
  it('has exactly the types of DOMAIN.md and no other', () => {
    expect(userTypes(schema.getTypeMap()).sort()).toEqual(userTypes(domain.getTypeMap()).sort());
  });

  it.each(userTypes(domain.getTypeMap()))('%s matches DOMAIN.md field for field', (name) => {
    expect(printType(schema.getType(name)!)).toBe(printType(domain.getType(name)!));
  });

  it('is read-only: a Query type and nothing else', () => {
    expect(schema.getMutationType()).toBeUndefined();
    expect(schema.getSubscriptionType()).toBeUndefined();
  });

  it('has the spec queries with its argument names, order and types', () => {
    const signatures = Object.values(schema.getQueryType()!.getFields()).map(
      (field) => `${field.name}(${field.args.map((arg) => `${arg.name}: ${String(arg.type)}`).join(', ')}): ${String(field.type)}`,
    );
    expect(signatures).toEqual([
      'getPolicy(id: ID!): Policy',
      'listPolicies(): [Policy!]!',
      'generateLifeQuote(applicant: LifeInsuranceApplicant!, request: LifeInsurancePolicyRequest!): LifeQuote',
      'calculateLifeRiskScore(applicant: LifeInsuranceApplicant!): LifeRiskScore',
      'generateAutoQuote(driver: AutoInsuranceDriver!, vehicle: AutoInsuranceVehicle!, coverageType: String!): AutoQuote',
      'checkServiceEligibility(patient: HealthcarePatient!, service: HealthcareService!): ServiceEligibility',
      'processClaim(claim: HealthcareClaim!, provider: HealthcareProvider!, patientCoverage: Int!): ClaimDecision',
      'evaluateLoanEligibility(application: LoanApplication!, applicant: LoanApplicant!): LoanEligibility',
      'evaluateCreditCardApplication(applicant: CreditCardApplicantInfo!, history: CreditCardFinancialHistory!, offer: CreditCardOffer!): CreditCardDecision',
      'evaluateEnterpriseLoan(enterprise: EnterpriseInfo!, position: FinancialPosition!, history: BusinessHistory!, application: EnterpriseLoanApplication!): EnterpriseLoanDecision',
      'evaluatePersonalLoan(personal: PersonalInfo!, income: IncomeProfile!, credit: CreditProfile!, debt: DebtProfile!, request: PersonalLoanRequest!): PersonalLoanDecision',
    ]);
  });
});
