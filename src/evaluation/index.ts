export { EvaluationErrorCode, EvaluationRequestError } from './evaluation-errors.js';
export {
  DEFAULT_EVALUATION_LOCALE,
  MAX_LOCALE_LENGTH,
  MAX_NAME_LENGTH,
  parseBatchEvaluationBody,
  parseBatchItem,
  parseSourceEvaluationBody,
  type BatchEntry,
  type SourceEvaluationRequest,
  type StoredPolicyRequest,
} from './evaluation-request.js';
export {
  failureCode,
  publicDiagnostic,
  rejectedItem,
  toResponseItem,
  type EvaluationResponseItem,
  type PublicDiagnostic,
  type PublicSpan,
} from './evaluation-response.js';
export { SOURCE_EVALUATED, sourceEvaluatedEvent, sourceHash } from './source-evaluation-audit.js';
export {
  createEvaluationService,
  type EvaluationCaller,
  type EvaluationRunOptions,
  type EvaluationService,
  type EvaluationServiceDeps,
} from './evaluation-service.js';
export type { PolicyResolution, ResolvedPolicy, StoredPolicyEvaluation, StoredPolicyResolver } from './stored-policy-resolver.js';
