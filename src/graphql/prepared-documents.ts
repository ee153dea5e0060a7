import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { GraphqlErrorCode } from './graphql-error-codes.js';
import type { GraphqlLimits } from './graphql-limits.js';
import { createLimitRules } from './limit-rules.js';

/**
 * A query text after parsing and validation: the document, or why it cannot run. Validation
 * depends on the schema and the text only (not on variables or the caller), so the outcome is
 * shared by every request sending the same text.
 */
export type PreparedDocument =
  | { ok: true; document: DocumentNode; validationErrors: readonly GraphQLError[] }
  | { ok: false; errors: readonly GraphQLError[] };

export interface PreparedDocuments {
  prepare(query: string): PreparedDocument;
  readonly size: number;
}

export const DEFAULT_DOCUMENT_CACHE_SIZE = 256;

/** Validation stops collecting after this many errors (graphql's own default is 100). */
const MAX_VALIDATION_ERRORS = 20;

/**
 * Parses and validates query texts, remembering the last `capacity` outcomes (least recently used
 * first out). Clients send the same few documents with different variables, so most requests
 * skip parsing and validation, which cost more than executing a decision's selection. The depth,
 * alias and cost rules run in a pass of their own before the specified rules, so an oversized
 * document is refused before the costlier checks look at it.
 */
export function createPreparedDocuments(schema: GraphQLSchema, limits: GraphqlLimits, capacity = DEFAULT_DOCUMENT_CACHE_SIZE): PreparedDocuments {
  if (!Number.isSafeInteger(capacity) || capacity < 0) {
    throw new RangeError(`graphql document cache size must be a whole number ≥ 0, got ${String(capacity)}`);
  }
  const limitRules = createLimitRules(limits);
  const validationRules: readonly ValidationRule[] = limits.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
  const cache = new Map<string, PreparedDocument>();

  function prepareUncached(query: string): PreparedDocument {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: limits.maxTokens });
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      return { ok: false, errors: [parseError(error, limits.maxTokens)] };
    }
    const limitErrors = validate(schema, document, limitRules, { maxErrors: MAX_VALIDATION_ERRORS });
    if (limitErrors.length > 0) return { ok: false, errors: limitErrors };
    const validationErrors = validate(schema, document, validationRules, { maxErrors: MAX_VALIDATION_ERRORS }).map((error) =>
      withCode(error, GraphqlErrorCode.VALIDATION_FAILED),
    );
    return { ok: true, document, validationErrors };
  }

  return {
    prepare(query) {
      const known = cache.get(query);
      if (known) {
        cache.delete(query);
        cache.set(query, known);
        return known;
      }
      const prepared = prepareUncached(query);
      if (capacity > 0) {
        cache.set(query, prepared);
        if (cache.size > capacity) cache.delete(cache.keys().next().value!);
      }
      return prepared;
    },
    get size() {
      return cache.size;
    },
  };
}

// graphql 16 says "more that N tokens"; later versions may fix the wording.
const TOKEN_LIMIT_MESSAGE = /Document contains more (?:than|that) \d+ tokens/;

function parseError(error: GraphQLError, maxTokens: number): GraphQLError {
  if (TOKEN_LIMIT_MESSAGE.test(error.message)) {
    return new GraphQLError(`the query document has more than ${maxTokens} tokens; the limit is ${maxTokens}`, {
      extensions: { code: GraphqlErrorCode.TOKEN_LIMIT },
    });
  }
  return withCode(error, GraphqlErrorCode.PARSE_FAILED);
}

/** The error as it was, with a code when it had none. */
export function withCode(error: GraphQLError, code: string): GraphQLError {
  if (typeof error.extensions.code === 'string') return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes ?? null,
    source: error.source ?? null,
    positions: error.positions ?? null,
    path: error.path ?? null,
    originalError: error.originalError ?? null,
    extensions: { ...error.extensions, code },
  });
}
