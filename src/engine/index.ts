export {
  createEnginePool,
  EnginePoolClosedError,
  EngineThreadError,
  THREAD_STOPPED_ERROR,
  type EnginePool,
  type EnginePoolOptions,
  type EnginePoolStats,
  type EvaluateManyOptions,
} from './engine-pool.js';
export type { EvaluationItem, ItemResult } from './evaluation-item.js';
export { createProgramCache, programCacheKey, type ProgramCache } from './program-cache.js';
export { EngineThreadFileMissingError, resolveThreadFile } from './thread-file.js';
