/**
 * The built-in policies must line up with the GraphQL domain schema: each query is one rule whose
 * parameters are the query's arguments in order, and every record has exactly the fields of its
 * GraphQL type (same names, same order, Int/Float/Text/Bool per the schema; enum-like inputs are
 * Text and validated inside the policy).
 */
import {
  buildSchema,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
  type GraphQLType,
} from 'graphql';
import { describe, expect, it } from 'vitest';

import type { Locale } from '../../src/language/api-types.js';
import type { RecordDecl, TypeRef } from '../../src/language/ast/nodes.js';
import { compilePolicy } from './domain-harness.js';

const SDL = /* GraphQL */ `
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

  type Query {
    generateLifeQuote(applicant: LifeInsuranceApplicant!, request: LifeInsurancePolicyRequest!): LifeQuote!
    calculateLifeRiskScore(applicant: LifeInsuranceApplicant!): LifeRiskScore!
    generateAutoQuote(driver: AutoInsuranceDriver!, vehicle: AutoInsuranceVehicle!, coverageType: String!): AutoQuote!
    checkServiceEligibility(patient: HealthcarePatient!, service: HealthcareService!): ServiceEligibility!
    processClaim(claim: HealthcareClaim!, provider: HealthcareProvider!, patientCoverage: Int!): ClaimDecision!
    evaluateLoanEligibility(application: LoanApplication!, applicant: LoanApplicant!): LoanEligibility!
    evaluateCreditCardApplication(applicant: CreditCardApplicantInfo!, history: CreditCardFinancialHistory!, offer: CreditCardOffer!): CreditCardDecision!
    evaluateEnterpriseLoan(enterprise: EnterpriseInfo!, position: FinancialPosition!, history: BusinessHistory!, application: EnterpriseLoanApplication!): EnterpriseLoanDecision!
    evaluatePersonalLoan(personal: PersonalInfo!, income: IncomeProfile!, credit: CreditProfile!, debt: DebtProfile!, request: PersonalLoanRequest!): PersonalLoanDecision!
  }
`;

const QUERIES: ReadonlyArray<[query: string, moduleName: string, locale: Locale]> = [
  ['generateLifeQuote', 'insurance.life', 'en-US'],
  ['calculateLifeRiskScore', 'insurance.life', 'en-US'],
  ['generateAutoQuote', 'insurance.auto', 'en-US'],
  ['checkServiceEligibility', 'healthcare.eligibility', 'en-US'],
  ['processClaim', 'healthcare.claims', 'zh-CN'],
  ['evaluateLoanEligibility', 'lending.loan', 'en-US'],
  ['evaluateCreditCardApplication', 'lending.creditcard', 'de-DE'],
  ['evaluateEnterpriseLoan', 'lending.enterprise', 'en-US'],
  ['evaluatePersonalLoan', 'lending.personal', 'en-US'],
];

const schema = buildSchema(SDL);
const queryType = schema.getQueryType()!;

const SCALARS: Record<string, string> = { Int: 'Int', Float: 'Float', String: 'Text', Boolean: 'Bool', ID: 'Text' };

/** The policy type a GraphQL type maps to, written as in en-US source. */
function policyType(type: GraphQLType): string {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return `List of ${policyType(inner.ofType)}`;
  const named = getNamedType(inner);
  return isScalarType(named) ? SCALARS[named.name]! : named.name;
}

function typeRefText(ref: TypeRef): string {
  switch (ref.kind) {
    case 'PrimitiveType':
    case 'NamedType':
      return ref.name;
    case 'ListType':
      return `List of ${typeRefText(ref.element)}`;
  }
}

/** The GraphQL object and input types reachable from a query's arguments and result. */
function recordTypes(query: string): Array<GraphQLObjectType | GraphQLInputObjectType> {
  const field = queryType.getFields()[query]!;
  const found = new Map<string, GraphQLObjectType | GraphQLInputObjectType>();
  const visit = (type: GraphQLType) => {
    const named = getNamedType(type);
    if ((isObjectType(named) || isInputObjectType(named)) && !found.has(named.name)) {
      found.set(named.name, named);
      for (const f of Object.values(named.getFields())) visit(f.type);
    }
  };
  for (const arg of field.args) visit(arg.type);
  visit(field.type);
  return [...found.values()];
}

describe.each(QUERIES)('query %s', (query, moduleName, locale) => {
  const program = compilePolicy(moduleName, locale);
  const field = queryType.getFields()[query]!;

  it(`is the rule ${moduleName}.${query} with the query's arguments in order`, () => {
    const signature = program.functions.find((f) => f.name === query);
    expect(signature).toEqual({
      name: query,
      params: field.args.map((arg) => ({ name: arg.name, type: policyType(arg.type) })),
      returnType: policyType(field.type),
    });
  });

  it.each(recordTypes(query).map((type) => [type.name, type] as const))('record %s has exactly the GraphQL fields', (name, type) => {
    const record = program.module.declarations.find((d): d is RecordDecl => d.kind === 'RecordDecl' && d.name === name);
    expect(record, `record ${name} is declared`).toBeDefined();
    expect(record!.fields.map((f) => [f.name, typeRefText(f.type)])).toEqual(
      Object.values(type.getFields()).map((f) => [f.name, policyType(f.type)]),
    );
  });
});

it('has one built-in module per DOMAIN module and no other policy files', async () => {
  const { readdir } = await import('node:fs/promises');
  const files = (await readdir(new URL('../../policies/', import.meta.url))).filter((f) => f.endsWith('.policy')).sort();
  expect(files).toEqual([...new Set(QUERIES.map(([, m]) => `${m}.policy`))].sort());
});
