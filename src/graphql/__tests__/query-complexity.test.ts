import { Kind, parse, validate, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createGraphqlSchema } from '../create-graphql-schema.js';
import { resolveGraphqlLimits } from '../graphql-limits.js';
import { createLimitRules } from '../limit-rules.js';
import { measureSelectionSet } from '../query-complexity.js';

function measure(source: string, decisionCost = 10) {
  const document = parse(source);
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  return measureSelectionSet(operation.selectionSet, (name) => fragments.get(name), decisionCost);
}

describe('measureSelectionSet', () => {
  it('counts fields, depth and aliases', () => {
    expect(measure('{ __typename }')).toEqual({ depth: 1, cost: 1, aliases: 0 });
    expect(measure('{ a: listPolicies { id b: version } getPolicy(id: "x") { id } }')).toEqual({ depth: 2, cost: 5, aliases: 2 });
  });

  it('weighs a domain decision at the root only', () => {
    expect(measure('{ evaluateLoanEligibility { eligible term } }', 7)).toEqual({ depth: 2, cost: 9, aliases: 0 });
    // A field of that name below the root is an ordinary field.
    expect(measure('{ listPolicies { evaluateLoanEligibility } }', 7)).toEqual({ depth: 2, cost: 2, aliases: 0 });
  });

  it('expands fragments where they are spread, inline fragments too', () => {
    const source = `{ ...Root ... on Query { x: __typename } }
      fragment Root on Query { listPolicies { ...Fields } evaluateLoanEligibility { eligible } }
      fragment Fields on Policy { id ... on Policy { source } }`;
    // listPolicies with its two fields 3, the decision 10 + 1, the inline __typename 1
    expect(measure(source)).toEqual({ depth: 2, cost: 3 + 11 + 1, aliases: 1 });
  });

  it('counts a fragment spread twice twice, and measures a doubling chain in linear time', () => {
    const fragments = Array.from({ length: 60 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join('\n');
    const measured = measure(`{ ...F0 } ${fragments} fragment F60 on Query { __typename }`);
    expect(measured.cost).toBe(2 ** 60);
    expect(measured.depth).toBe(1);
  });

  it('counts unknown and cyclic fragments as nothing (validation reports them)', () => {
    expect(measure('{ __typename ...Missing }')).toEqual({ depth: 1, cost: 1, aliases: 0 });
    expect(measure('{ ...A } fragment A on Query { __typename ...B } fragment B on Query { ...A }')).toEqual({ depth: 1, cost: 1, aliases: 0 });
  });
});

describe('limit rules', () => {
  const schema = createGraphqlSchema();
  const check = (source: string, overrides = {}) =>
    validate(schema, parse(source), createLimitRules(resolveGraphqlLimits(overrides))).map((e) => [e.extensions.code, e.message]);

  it('reports each exceeded limit once per operation, naming it', () => {
    expect(check('query Big { a: __typename b: __typename listPolicies { id } }', { maxAliases: 1, maxCost: 3, maxDepth: 1 })).toEqual([
      ['ERR_GRAPHQL_DEPTH_LIMIT', 'operation `Big` is nested 2 levels deep; the limit is 1'],
      ['ERR_GRAPHQL_ALIAS_LIMIT', 'operation `Big` uses 2 aliases; the limit is 1'],
      [
        'ERR_GRAPHQL_COST_LIMIT',
        'operation `Big` costs 4; the limit is 3 (each selected field costs 1, each domain decision 10, fragments counted where they are spread)',
      ],
    ]);
  });

  it('accepts what is within the limits, at the limits', () => {
    expect(check('{ a: __typename listPolicies { id } }', { maxAliases: 1, maxCost: 3, maxDepth: 2 })).toEqual([]);
  });

  it('checks every operation of the document', () => {
    expect(check('query A { __typename } query B { listPolicies { id } }', { maxDepth: 1 }).map(([code]) => code)).toEqual(['ERR_GRAPHQL_DEPTH_LIMIT']);
  });

  it('says when a cost is beyond counting exactly', () => {
    const fragments = Array.from({ length: 60 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join('\n');
    const [[, message]] = check(`{ ...F0 } ${fragments} fragment F60 on Query { __typename }`) as [[string, string]];
    expect(message).toContain(`costs more than ${Number.MAX_SAFE_INTEGER}`);
  });
});
