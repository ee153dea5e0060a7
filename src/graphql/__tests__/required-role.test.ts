import { getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { requiredRole } from '../required-role.js';

function roleFor(source: string, operationName?: string) {
  const document = parse(source);
  return requiredRole(document, getOperationAST(document, operationName)!);
}

describe('requiredRole', () => {
  it.each([
    ['{ __typename }'],
    ['{ listPolicies { id } getPolicy(id: "p") { id } }'],
    ['{ __schema { queryType { name } } }'],
  ])('VIEWER for policy reads and introspection: %s', (source) => {
    expect(roleFor(source)).toEqual({ role: 'VIEWER', decisions: [] });
  });

  it('MEMBER for any domain decision, listing them once in document order', () => {
    expect(roleFor('{ listPolicies { id } b: processClaim { approved } a: evaluateLoanEligibility { eligible } c: processClaim { approved } }')).toEqual({
      role: 'MEMBER',
      decisions: ['processClaim', 'evaluateLoanEligibility'],
    });
  });

  it('looks through fragments and inline fragments, and survives cycles', () => {
    expect(roleFor('{ ...A } fragment A on Query { ...B ... on Query { __typename } } fragment B on Query { ...A calculateLifeRiskScore { score } }')).toEqual({
      role: 'MEMBER',
      decisions: ['calculateLifeRiskScore'],
    });
  });

  it('counts a decision under @skip: the role is judged on the document, not on variables', () => {
    expect(roleFor('query ($s: Boolean!) { evaluatePersonalLoan @skip(if: $s) { eligible } }').role).toBe('MEMBER');
  });

  it('judges the operation that runs, not its neighbours', () => {
    const source = 'query Read { listPolicies { id } } query Decide { generateAutoQuote { annualPremium } }';
    expect(roleFor(source, 'Read').role).toBe('VIEWER');
    expect(roleFor(source, 'Decide').role).toBe('MEMBER');
  });

  it('treats a decision name below the root as an ordinary field', () => {
    expect(roleFor('{ listPolicies { processClaim: id } }').role).toBe('VIEWER');
  });
});
