/**
 * `extensions.code` of every error the GraphQL endpoint reports. A failed domain decision carries
 * the engine's diagnostic code instead (`PL3004` for `Fail with`, `PL4004` for a timeout, …).
 */
export const GraphqlErrorCode = {
  /** Missing or malformed `query`, `variables`, `operationName` or `extensions`. */
  REQUEST_INVALID: 'ERR_GRAPHQL_REQUEST_INVALID',
  DOCUMENT_TOO_LARGE: 'ERR_GRAPHQL_DOCUMENT_TOO_LARGE',
  TOKEN_LIMIT: 'ERR_GRAPHQL_TOKEN_LIMIT',
  PARSE_FAILED: 'ERR_GRAPHQL_PARSE_FAILED',
  /** `operationName` names no operation, or several operations and none named. */
  OPERATION_UNKNOWN: 'ERR_GRAPHQL_OPERATION_UNKNOWN',
  /** Mutations and subscriptions: the endpoint is read-only. */
  OPERATION_NOT_SUPPORTED: 'ERR_GRAPHQL_OPERATION_NOT_SUPPORTED',
  DEPTH_LIMIT: 'ERR_GRAPHQL_DEPTH_LIMIT',
  ALIAS_LIMIT: 'ERR_GRAPHQL_ALIAS_LIMIT',
  COST_LIMIT: 'ERR_GRAPHQL_COST_LIMIT',
  VALIDATION_FAILED: 'ERR_GRAPHQL_VALIDATION_FAILED',
  VARIABLES_INVALID: 'ERR_GRAPHQL_VARIABLES_INVALID',
  /** An argument outside its bounds (e.g. `listPolicies(size:)` above its maximum). */
  ARGUMENT_INVALID: 'ERR_GRAPHQL_ARGUMENT_INVALID',
  /** A resolver's value does not fit the schema (e.g. a deployed policy returning another shape). */
  RESULT_INVALID: 'ERR_GRAPHQL_RESULT_INVALID',
  /** Nothing could evaluate the decision in time (no worker, queue down). */
  EVALUATION_UNAVAILABLE: 'ERR_EVALUATION_UNAVAILABLE',
  /** The store did not answer (retry later). */
  SERVICE_UNAVAILABLE: 'ERR_SERVICE_UNAVAILABLE',
  ROLE_INSUFFICIENT: 'ERR_AUTH_ROLE_INSUFFICIENT',
  INTERNAL_UNEXPECTED: 'ERR_INTERNAL_UNEXPECTED',
  /** The Accept header names no media type the endpoint can answer with. */
  NOT_ACCEPTABLE: 'ERR_GRAPHQL_NOT_ACCEPTABLE',
  /** The request's Content-Type is not JSON. */
  MEDIA_TYPE_UNSUPPORTED: 'ERR_GRAPHQL_MEDIA_TYPE_UNSUPPORTED',
  METHOD_NOT_ALLOWED: 'ERR_GRAPHQL_METHOD_NOT_ALLOWED',
} as const;

export type GraphqlErrorCodeValue = (typeof GraphqlErrorCode)[keyof typeof GraphqlErrorCode];
