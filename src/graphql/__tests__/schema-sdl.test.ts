import { readFileSync } from 'node:fs';
import { buildSchema, printType, type GraphQLNamedType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createGraphqlSchema } from '../create-graphql-schema.js';

/** The schema block of docs/domain.md: the documented contract the endpoint's types must match field for field. */
const DOMAIN_DOC = readFileSync(new URL('../../../docs/domain.md', import.meta.url), 'utf8');
const DOMAIN_SDL = `${/```graphql\n([\s\S]*?)```/.exec(DOMAIN_DOC)![1]}\ntype Query { placeholder: Boolean }\n`;

const domain = buildSchema(DOMAIN_SDL);
const schema = createGraphqlSchema();
const userTypes = (types: Record<string, GraphQLNamedType>) =>
  Object.keys(types).filter((name) => !name.startsWith('__') && !['String', 'Int', 'Float', 'Boolean', 'ID', 'Query'].includes(name));

describe('the schema', () => {
  it('has exactly the types of docs/domain.md and no other', () => {
    expect(userTypes(schema.getTypeMap()).sort()).toEqual(userTypes(domain.getTypeMap()).sort());
  });

  it.each(userTypes(domain.getTypeMap()))('%s matches docs/domain.md field for field', (name) => {
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
      'listPolicies(page: Int, size: Int): [Policy!]!',
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
