export {
  createEnginePool,
  EnginePoolClosedError,
  EngineThreadError,
  type EnginePool,
  type EnginePoolOptions,
  type EnginePoolStats,
  type EngineRun,
  type EngineRunOptions,
} from './engine-pool.js';
export {
  toBatch,
  type BatchItem,
  type CompileRequest,
  type EngineRequest,
  type FormatRequest,
  type EvaluateRequest,
  type EvaluationBatch,
} from './evaluation-batch.js';
export {
  CANCELLED_ERROR,
  deserializeResult,
  diagnosticFailure,
  EngineFailureCode,
  engineFailure,
  INTERNAL_EVALUATION_ERROR,
  serializeResult,
  THREAD_STOPPED_ERROR,
  TIMEOUT_CODE,
  timeoutFailure,
  type CompileFailure,
  type CompileOutcome,
  type CompileSuccess,
  type EvaluationFailure,
  type EvaluationOutcome,
  type EvaluationSuccess,
  type FormatFailure,
  type FormatOutcome,
  type FormatSuccess,
  type ItemResult,
  type SerializedItemResult,
} from './item-result.js';
export { createProgramCache, programCacheKey, type ProgramCache } from './program-cache.js';
export { EngineThreadFileMissingError, resolveThreadFile } from './thread-file.js';
