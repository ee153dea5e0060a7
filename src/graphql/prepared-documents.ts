import {
  GraphQLError,
  Lexer,
  NoSchemaIntrospectionCustomRule,
  Source,
  TokenKind,
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

  const maxNesting = maxBracketNesting(limits.maxDepth);

  function prepareUncached(query: string): PreparedDocument {
    // graphql's parser and visitors recurse once per level: a few thousand nested brackets
    // overflow the stack long before the token limit is reached. Measure the nesting first.
    const nesting = bracketNesting(query, maxNesting, limits.maxTokens);
    if (nesting > maxNesting) return { ok: false, errors: [nestingError(maxNesting, limits.maxDepth)] };
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: limits.maxTokens });
    } catch (error) {
      if (error instanceof RangeError) return { ok: false, errors: [nestingError(maxNesting, limits.maxDepth)] };
      if (!(error instanceof GraphQLError)) throw error;
      return { ok: false, errors: [parseError(error, limits.maxTokens)] };
    }
    try {
      const limitErrors = validate(schema, document, limitRules, { maxErrors: MAX_VALIDATION_ERRORS });
      if (limitErrors.length > 0) return { ok: false, errors: limitErrors };
      const validationErrors = validate(schema, document, validationRules, { maxErrors: MAX_VALIDATION_ERRORS }).map((error) =>
        withCode(error, GraphqlErrorCode.VALIDATION_FAILED),
      );
      return { ok: true, document, validationErrors };
    } catch (error) {
      // The nesting check keeps documents far from the stack's end; this is the last line of defence.
      if (error instanceof RangeError) return { ok: false, errors: [nestingError(maxNesting, limits.maxDepth)] };
      throw error;
    }
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

/**
 * How deep `{`, `[` and `(` may nest in a document: a selection set per field level, plus the
 * arguments, input objects and lists of the deepest field. Twice the depth limit and 8 more admits
 * every query the depth limit admits, with any argument the schema's flat input types take.
 */
export function maxBracketNesting(maxDepth: number): number {
  return 2 * maxDepth + 8;
}

/**
 * The deepest nesting of `{`, `[` and `(` in the document's tokens (strings and comments do not
 * count), scanning no further than `stopAbove` levels or `maxTokens` tokens. A lexical error ends
 * the scan: the parser then reports it.
 */
export function bracketNesting(query: string, stopAbove: number, maxTokens: number): number {
  const lexer = new Lexer(new Source(query));
  let depth = 0;
  let deepest = 0;
  try {
    for (let count = 0; count <= maxTokens; count += 1) {
      const token = lexer.advance();
      if (token.kind === TokenKind.EOF) break;
      if (token.kind === TokenKind.BRACE_L || token.kind === TokenKind.BRACKET_L || token.kind === TokenKind.PAREN_L) {
        depth += 1;
        if (depth > deepest) deepest = depth;
        if (deepest > stopAbove) break;
      } else if (token.kind === TokenKind.BRACE_R || token.kind === TokenKind.BRACKET_R || token.kind === TokenKind.PAREN_R) {
        depth = Math.max(0, depth - 1);
      }
    }
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
  }
  return deepest;
}

function nestingError(maxNesting: number, maxDepth: number): GraphQLError {
  return new GraphQLError(
    `the query document nests selection sets, lists, input objects or arguments more than ${maxNesting} levels deep; ` +
      `the limit is 2 × the depth limit of ${maxDepth} (GRAPHQL_MAX_DEPTH) + 8`,
    { extensions: { code: GraphqlErrorCode.DEPTH_LIMIT } },
  );
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
