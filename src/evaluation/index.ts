export { contextDepthProblem, DEFAULT_CONTEXT_MAX_DEPTH } from './context-bounds.js';
export { EvaluationErrorCode, EvaluationRequestError, RequesterGoneError } from './evaluation-errors.js';
export {
  DEFAULT_EVALUATION_LOCALE,
  MAX_LOCALE_LENGTH,
  parseBatchEvaluationBody,
  parseBatchItem,
  parseSourceEvaluationBody,
  parseStoredEvaluationBody,
  type BatchEntry,
  type RequestLimits,
  type SourceEvaluationRequest,
  type StoredPolicyRequest,
} from './evaluation-request.js';
export { publicDiagnostic, toResponseItem, type EvaluationResponseItem, type PublicDiagnostic, type PublicSpan } from './evaluation-response.js';
export { EVALUATION_AUDIT_EVENT_TYPES } from './evaluation-audit-types.js';
export { SOURCE_EVALUATED, sourceEvaluatedEvent, sourceHash } from './source-evaluation-audit.js';
export { POLICY_EVALUATED, policyEvaluatedEvent } from './stored-evaluation-audit.js';
export { createRollupRecorder, minuteOf, type RollupRecorder, type RollupRecorderOptions, type RollupSample } from './rollup-recorder.js';
export {
  createEvaluationService,
  type EvaluationAnswer,
  type EvaluationCaller,
  type EvaluationLimits,
  type EvaluationRunOptions,
  type EvaluationService,
  type EvaluationServiceDeps,
  type SourceCase,
} from './evaluation-service.js';
export type { PolicyResolution, PolicyResolver, ResolvedPolicy, RolloutRoute, RoutedChoice, ShadowCopy } from './policy-resolver.js';
export type { RolloutTally, RoutedObservation, ShadowComparison, ShadowOutcome, ShadowSample, ShadowSideResult } from './rollout-tally.js';
export { declaredBatchSchema as batchEvaluationBodySchema, sourceSchema as sourceEvaluationBodySchema, storedSchema as storedEvaluationBodySchema } from './evaluation-request.js';
export { createCallerGone, type CallerGone, type CallerGoneSource } from './caller-gone.js';
export {
  DispatcherClosedError,
  EvaluationQueueError,
  EvaluationUnavailableError,
  EvaluationWorkerError,
  NoWorkerAvailableError,
} from './dispatch-errors.js';
export {
  createEvaluationDispatcher,
  type DispatchOptions,
  type EvaluationDispatcher,
  type EvaluationDispatcherOptions,
  type EvaluationDispatcherStats,
} from './evaluation-dispatcher.js';
export { createRedisBatchTransport, type RedisBatchTransportOptions } from './queue/redis-batch-transport.js';
export { startEvaluationWorker, type EvaluationWorker, type EvaluationWorkerOptions, type EvaluationWorkerStats } from './queue/evaluation-worker.js';
export { createPolicyEvaluateProcessor, type PolicyEvaluateProcessorDeps } from './queue/policy-evaluate.processor.js';
