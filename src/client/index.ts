export { createPolicyClient, DEFAULT_BATCH_PATH, EVALUATE_SOURCE_PATH, GRAPHQL_PATH } from './policy-client.js';
export { PolicyHttpError, PolicyNetworkError, PolicyProtocolError, type PolicyHttpErrorDetails } from './policy-client-errors.js';
export {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  decideRetry,
  isRetryableStatus,
  parseRetryAfter,
  type RetryDecision,
  type RetryPolicy,
} from './retry-policy.js';
export type {
  EvaluateBatchOutcome,
  EvaluateSourceInput,
  EvaluateSourceOutcome,
  EvaluationFailure,
  EvaluationOutcome,
  EvaluationSuccess,
  GraphQLErrorItem,
  GraphQLOutcome,
  PolicyClient,
  PolicyClientOptions,
  PolicyResponse,
  RequestBodyInput,
  RequestOptions,
  ResponseMeta,
} from './client-types.js';
