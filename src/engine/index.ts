export {
  createEnginePool,
  EnginePoolClosedError,
  EngineThreadError,
  type EnginePool,
  type EnginePoolOptions,
  type EnginePoolStats,
  type EngineRun,
} from './engine-pool.js';
export {
  sliceBatch,
  toBatch,
  type BatchItem,
  type BatchPart,
  type CompileRequest,
  type EngineRequest,
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
  timeoutFailure,
  type CompiledModuleSummary,
  type CompileFailure,
  type CompileOutcome,
  type CompileSuccess,
  type EvaluationFailure,
  type EvaluationOutcome,
  type EvaluationSuccess,
  type ItemResult,
  type SerializedItemResult,
} from './item-result.js';
export { createProgramCache, programCacheKey, type ProgramCache } from './program-cache.js';
export { createTenantProgramCache, type TenantProgramCache } from './tenant-program-cache.js';
export { EngineThreadFileMissingError, resolveThreadFile } from './thread-file.js';
