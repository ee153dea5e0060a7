import { getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { rootDecisions } from '../root-decisions.js';

function keysOf(source: string, operationName?: string): string[] {
  const document = parse(source);
  return rootDecisions(document, getOperationAST(document, operationName)!).map((field) => field.alias?.value ?? field.name.value);
}

describe('rootDecisions', () => {
  it('counts every aliased decision: each alias runs the rule once', () => {
    const aliases = Array.from({ length: 30 }, (_, i) => `d${i}: calculateLifeRiskScore { score }`).join(' ');
    expect(keysOf(`{ ${aliases} }`)).toHaveLength(30);
  });

  it('counts one per response key, as GraphQL merges fields under one key', () => {
    expect(keysOf('{ processClaim { approved } processClaim { approved } a: processClaim { approved } }')).toEqual(['processClaim', 'a']);
  });

  it('ignores policy reads and nested fields', () => {
    expect(keysOf('{ listPolicies { id } getPolicy(id: "p") { id } __typename }')).toEqual([]);
  });

  it('looks through fragments spread more than once, inline fragments and cycles', () => {
    const source =
      '{ ...A ...A ... on Query { b: generateAutoQuote { annualPremium } } } ' +
      'fragment A on Query { a: evaluatePersonalLoan { eligible } ...B } fragment B on Query { ...A c: evaluatePersonalLoan { eligible } }';
    expect(keysOf(source)).toEqual(['a', 'c', 'b']);
  });

  it('counts a decision under @skip: the charge is judged on the document, not on variables', () => {
    expect(keysOf('query ($s: Boolean!) { evaluatePersonalLoan @skip(if: $s) { eligible } }')).toHaveLength(1);
  });

  it('counts the operation that runs, not its neighbours', () => {
    const source = 'query Read { listPolicies { id } } query Decide { x: generateAutoQuote { annualPremium } y: generateAutoQuote { annualPremium } }';
    expect(keysOf(source, 'Read')).toEqual([]);
    expect(keysOf(source, 'Decide')).toEqual(['x', 'y']);
  });
});
