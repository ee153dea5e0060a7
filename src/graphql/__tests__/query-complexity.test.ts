import { Kind, parse, validate, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createGraphqlSchema } from '../create-graphql-schema.js';
import { resolveGraphqlLimits } from '../graphql-limits.js';
import { createLimitRules } from '../limit-rules.js';
import { measureSelectionSet, SOURCE_FIELD_COST } from '../query-complexity.js';

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
    expect(measure('{ a: listPolicies(size: 1) { id b: version } getPolicy(id: "x") { id } }')).toEqual({ depth: 2, cost: 5, aliases: 2 });
  });

  it('weighs a domain decision at the root only', () => {
    expect(measure('{ evaluateLoanEligibility { eligible term } }', 7)).toEqual({ depth: 2, cost: 9, aliases: 0 });
    // A field of that name below the root is an ordinary field.
    expect(measure('{ listPolicies(size: 1) { evaluateLoanEligibility } }', 7)).toEqual({ depth: 2, cost: 2, aliases: 0 });
  });

  it('expands fragments where they are spread, inline fragments too', () => {
    const source = `{ ...Root ... on Query { x: __typename } }
      fragment Root on Query { listPolicies(size: 1) { ...Fields } evaluateLoanEligibility { eligible } }
      fragment Fields on Policy { id ... on Policy { version } }`;
    // listPolicies with its two fields 3, the decision 10 + 1, the inline __typename 1
    expect(measure(source)).toEqual({ depth: 2, cost: 3 + 11 + 1, aliases: 1 });
  });

  it('pays for a list\'s selection once per item it may answer: `size`, 20 without it, 100 for a variable', () => {
    expect(measure('{ listPolicies { id } }').cost).toBe(1 + 20);
    expect(measure('{ listPolicies(size: 5) { id version } }').cost).toBe(1 + 5 * 2);
    expect(measure('query ($n: Int) { listPolicies(size: $n) { id } }').cost).toBe(1 + 100);
    // Out of bounds: the resolver refuses it; the cost counts what could be answered at most.
    expect(measure('{ listPolicies(size: 5000) { id } }').cost).toBe(1 + 100);
    expect(measure('{ listPolicies(size: 0) { id } }').cost).toBe(1 + 1);
    expect(measure('{ a: listPolicies(page: 3) { id } b: listPolicies { id } }').cost).toBe(2 * (1 + 20));
  });

  it(`weighs a policy's source at ${SOURCE_FIELD_COST}, in a list once per item`, () => {
    expect(measure('{ getPolicy(id: "x") { source } }').cost).toBe(1 + SOURCE_FIELD_COST);
    expect(measure('{ listPolicies { id source } }').cost).toBe(1 + 20 * (1 + SOURCE_FIELD_COST));
    expect(measure('{ listPolicies { ...F } } fragment F on Policy { source }').cost).toBe(1 + 20 * SOURCE_FIELD_COST);
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
    expect(check('query Big { a: __typename b: __typename listPolicies(size: 1) { id } }', { maxAliases: 1, maxCost: 3, maxDepth: 1 })).toEqual([
      ['ERR_GRAPHQL_DEPTH_LIMIT', 'operation `Big` is nested 2 levels deep; the limit is 1'],
      ['ERR_GRAPHQL_ALIAS_LIMIT', 'operation `Big` uses 2 aliases; the limit is 1'],
      [
        'ERR_GRAPHQL_COST_LIMIT',
        'operation `Big` costs 4; the limit is 3 (each selected field costs 1, a policy\'s `source` 40, each domain decision 10; ' +
          '`listPolicies` counts its fields once per policy it may answer, `size` of them (100 when a variable); fragments counted where they are spread)',
      ],
    ]);
  });

  it('accepts what is within the limits, at the limits', () => {
    expect(check('{ a: __typename listPolicies(size: 1) { id } }', { maxAliases: 1, maxCost: 3, maxDepth: 2 })).toEqual([]);
  });

  it('admit the argument-free listPolicies with every field by default, and no more than 24 sources in any query', () => {
    const everyField = 'id policyModule policyFunction version status createdAt updatedAt source';
    expect(check(`{ listPolicies { ${everyField} } }`)).toEqual([]);
    expect(check(`{ listPolicies(size: 22) { ${everyField} } }`).map(([code]) => code)).toEqual(['ERR_GRAPHQL_COST_LIMIT']);
    expect(check('{ listPolicies(size: 24) { source } }')).toEqual([]);
    expect(check('{ listPolicies(size: 25) { source } }').map(([code]) => code)).toEqual(['ERR_GRAPHQL_COST_LIMIT']);
    expect(check('{ a: listPolicies(size: 12) { source } b: listPolicies(size: 12) { source } }')).toEqual([]);
    expect(check('{ a: listPolicies(size: 13) { source } b: listPolicies(size: 12) { source } }').map(([code]) => code)).toEqual(['ERR_GRAPHQL_COST_LIMIT']);
    const aliased = Array.from({ length: 6 }, (_, i) => `a${i}: listPolicies { source }`).join(' ');
    expect(check(`{ ${aliased} }`).map(([code]) => code)).toEqual(['ERR_GRAPHQL_COST_LIMIT']);
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
