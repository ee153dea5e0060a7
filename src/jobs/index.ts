export { DEFAULT_QUEUE_PREFIX, QUEUE_NAMES, queuePrefix, type QueueName } from './queue-names.js';
export {
  replyChannelName,
  type PolicyEvaluateJobData,
  type PolicyEvaluateJobItem,
  type PolicyEvaluateJobSummary,
  type PolicyEvaluateReply,
} from './policy-evaluate-job.js';
export {
  DispatcherClosedError,
  EvaluationQueueError,
  EvaluationUnavailableError,
  EvaluationWorkerError,
  NoWorkerAvailableError,
} from './dispatch-errors.js';
export {
  createEvaluationDispatcher,
  type EvaluationDispatcher,
  type EvaluationDispatcherOptions,
  type EvaluationDispatcherStats,
} from './evaluation-dispatcher.js';
export { startEvaluationWorker, type EvaluationWorker, type EvaluationWorkerOptions, type EvaluationWorkerStats } from './evaluation-worker.js';
export { createPolicyEvaluateProcessor, type PolicyEvaluateProcessorDeps } from './processors/policy-evaluate.processor.js';
export { createRedisClient, type RedisConnection } from './redis-connection.js';
