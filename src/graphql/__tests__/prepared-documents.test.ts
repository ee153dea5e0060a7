import { describe, expect, it } from 'vitest';
import { createGraphqlSchema } from '../create-graphql-schema.js';
import { resolveGraphqlLimits } from '../graphql-limits.js';
import { createPreparedDocuments } from '../prepared-documents.js';

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
});
