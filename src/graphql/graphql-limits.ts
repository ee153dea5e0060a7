/** What one request may ask of the endpoint. Every limit is checked before anything executes. */
export interface GraphqlLimits {
  /** UTF-8 bytes of the `query` text. */
  maxDocumentBytes: number;
  /** Lexical tokens of the document (graphql's `parse` stops counting there). */
  maxTokens: number;
  /** Nesting of fields, fragments expanded; a root field is depth 1. */
  maxDepth: number;
  /** Aliased fields in the document, fragments expanded. */
  maxAliases: number;
  /** Fields selected, fragments expanded: each costs 1, a domain decision `decisionCost`. */
  maxCost: number;
  /** Cost of one domain decision (one policy evaluation). */
  decisionCost: number;
  /** `__schema` / `__type` queries; allowed by default (the schema is no secret). */
  introspection: boolean;
}

/**
 * The deepest data query is 3 levels, but the standard introspection query (graphql-js
 * `getIntrospectionQuery`, what GraphiQL and code generators send) is 15 levels and costs 229:
 * the defaults admit it and stop anything deeper, such as `__Type` nested on itself.
 */
export const DEFAULT_GRAPHQL_LIMITS: Readonly<GraphqlLimits> = Object.freeze({
  maxDocumentBytes: 32 * 1024,
  maxTokens: 5000,
  maxDepth: 15,
  maxAliases: 30,
  maxCost: 1000,
  decisionCost: 10,
  introspection: true,
});

const NUMERIC_LIMITS = ['maxDocumentBytes', 'maxTokens', 'maxDepth', 'maxAliases', 'maxCost', 'decisionCost'] as const;

/** The defaults with `overrides` applied; a limit that is not a positive whole number is refused. */
export function resolveGraphqlLimits(overrides: Partial<GraphqlLimits> = {}): GraphqlLimits {
  const limits: GraphqlLimits = { ...DEFAULT_GRAPHQL_LIMITS };
  for (const name of NUMERIC_LIMITS) {
    const value = overrides[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`graphql limit ${name} must be a positive whole number, got ${String(value)}`);
    }
    limits[name] = value;
  }
  if (overrides.introspection !== undefined) {
    if (typeof overrides.introspection !== 'boolean') {
      throw new RangeError(`graphql limit introspection must be true or false, got ${String(overrides.introspection)}`);
    }
    limits.introspection = overrides.introspection;
  }
  return limits;
}
