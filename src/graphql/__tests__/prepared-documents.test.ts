import { describe, expect, it } from 'vitest';
import { createGraphqlSchema } from '../create-graphql-schema.js';
import { resolveGraphqlLimits } from '../graphql-limits.js';
import { bracketNesting, createPreparedDocuments, maxBracketNesting } from '../prepared-documents.js';

const schema = createGraphqlSchema();

describe('createPreparedDocuments', () => {
  it('parses and validates a text once, and answers the same outcome after', () => {
    const documents = createPreparedDocuments(schema, resolveGraphqlLimits());
    const first = documents.prepare('{ listPolicies { id } }');
    expect(first).toMatchObject({ ok: true, validationErrors: [] });
    expect(documents.prepare('{ listPolicies { id } }')).toBe(first);
    expect(documents.size).toBe(1);
  });

  it('keeps validation errors with their code beside the document', () => {
    const prepared = createPreparedDocuments(schema, resolveGraphqlLimits()).prepare('{ listPolicies { nope } }');
    expect(prepared.ok).toBe(true);
    if (!prepared.ok) return;
    expect(prepared.validationErrors.map((e) => [e.message, e.extensions.code])).toEqual([
      ['Cannot query field "nope" on type "Policy".', 'ERR_GRAPHQL_VALIDATION_FAILED'],
    ]);
  });

  it('refuses syntax errors and documents over the token limit, with codes', () => {
    const documents = createPreparedDocuments(schema, resolveGraphqlLimits({ maxTokens: 5 }));
    const syntax = documents.prepare('{ a');
    const tokens = documents.prepare('{ a b c d e f }');
    expect(syntax).toMatchObject({ ok: false, errors: [{ extensions: { code: 'ERR_GRAPHQL_PARSE_FAILED' } }] });
    expect(tokens).toMatchObject({
      ok: false,
      errors: [{ message: 'the query document has more than 5 tokens; the limit is 5', extensions: { code: 'ERR_GRAPHQL_TOKEN_LIMIT' } }],
    });
  });

  it('refuses a document over a limit without running the other validation rules', () => {
    const prepared = createPreparedDocuments(schema, resolveGraphqlLimits({ maxDepth: 1 })).prepare('{ listPolicies { unknownField } }');
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.errors.map((e) => e.extensions.code)).toEqual(['ERR_GRAPHQL_DEPTH_LIMIT']);
  });

  it('forgets the least recently used text beyond its capacity', () => {
    const documents = createPreparedDocuments(schema, resolveGraphqlLimits(), 2);
    const a = documents.prepare('{ a: __typename }');
    documents.prepare('{ b: __typename }');
    expect(documents.prepare('{ a: __typename }')).toBe(a);
    documents.prepare('{ c: __typename }');
    expect(documents.size).toBe(2);
    expect(documents.prepare('{ a: __typename }')).toBe(a);
    expect(documents.prepare('{ b: __typename }')).not.toBe(documents.prepare('{ c: __typename }'));
  });

  it('remembers nothing with capacity 0', () => {
    const documents = createPreparedDocuments(schema, resolveGraphqlLimits(), 0);
    expect(documents.prepare('{ __typename }')).not.toBe(documents.prepare('{ __typename }'));
    expect(documents.size).toBe(0);
  });

  it('refuses introspection when configured to', () => {
    const prepared = createPreparedDocuments(schema, resolveGraphqlLimits({ introspection: false })).prepare('{ __schema { queryType { name } } }');
    expect(prepared.ok).toBe(true);
    if (!prepared.ok) return;
    expect(prepared.validationErrors[0]).toMatchObject({
      message: 'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
      extensions: { code: 'ERR_GRAPHQL_VALIDATION_FAILED' },
    });
  });

  it('measures bracket nesting on the tokens, ignoring strings and comments, and stops early', () => {
    expect(bracketNesting('{ a(x: [[1]]) { b } }', 100, 1000)).toBe(4);
    expect(bracketNesting('{ a(x: "[[[[[[[[") # {{{{{{{{\n }', 100, 1000)).toBe(2);
    expect(bracketNesting('{'.repeat(100_000), 30, 1_000_000)).toBe(31);
    expect(bracketNesting('{ a \u0000', 100, 1000)).toBe(1);
    expect(maxBracketNesting(15)).toBe(38);
  });

  it('refuses nesting beyond the bracket limit with the depth code before parsing, whatever the token limit', () => {
    const documents = createPreparedDocuments(schema, resolveGraphqlLimits({ maxTokens: 100_000 }));
    for (const levels of [39, 2400, 20_000]) {
      const prepared = documents.prepare(`{ listPolicies ${'{ id '.repeat(levels)}${'}'.repeat(levels)} }`);
      expect(prepared).toMatchObject({ ok: false, errors: [{ extensions: { code: 'ERR_GRAPHQL_DEPTH_LIMIT' } }] });
      if (!prepared.ok) expect(prepared.errors[0]!.message).toContain('GRAPHQL_MAX_DEPTH');
    }
    const list = documents.prepare(`{ getPolicy(id: ${'['.repeat(5000)}1${']'.repeat(5000)}) { id } }`);
    expect(list).toMatchObject({ ok: false, errors: [{ extensions: { code: 'ERR_GRAPHQL_DEPTH_LIMIT' } }] });
  });
});
