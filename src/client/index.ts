export { createPolicyClient, DEFAULT_BATCH_PATH, EVALUATE_SOURCE_PATH, GRAPHQL_PATH } from './policy-client.js';
export { DEFAULT_LINK_POLLING } from './receipt-check.js';
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
export type { AuditReceipt } from '../audit/audit-content-hash.js';
export type {
  AuditRecordView,
  CheckReceiptOptions,
  EvaluateBatchOutcome,
  EvaluateSourceInput,
  EvaluateSourceOutcome,
  EvaluationFailure,
  EvaluationOutcome,
  EvaluationSuccess,
  GraphQLAnswerExtras,
  GraphQLErrorItem,
  GraphQLOutcome,
  LinkPolling,
  PolicyClient,
  PolicyClientOptions,
  PolicyResponse,
  ReceiptCheck,
  ReceiptProblem,
  RequestBodyInput,
  RequestOptions,
  ResponseMeta,
} from './client-types.js';
