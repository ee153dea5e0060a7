export { DEFAULT_QUEUE_PREFIX, QUEUE_NAMES, queuePrefix, type QueueName } from './queue-names.js';
export {
  cancelChannelName,
  replyChannelName,
  type PolicyEvaluateCancel,
  type PolicyEvaluateJobData,
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
export type { BatchTransport, DeliverResult, SentBatch } from './batch-transport.js';
export { createCallerGone, type CallerGone, type CallerGoneSource } from './caller-gone.js';
export { createLocalBatchTransport } from './local-batch-transport.js';
export { createRedisBatchTransport, type RedisBatchTransportOptions } from './redis-batch-transport.js';
export { DEFAULT_REPLY_MESSAGE_BYTES, replyMessages, type SettledItem } from './reply-messages.js';
export { createRunRegistry, type RunRegistry, type RunRegistryOptions } from './run-registry.js';
export {
  createEvaluationDispatcher,
  type DispatchOptions,
  type EvaluationDispatcher,
  type EvaluationDispatcherOptions,
  type EvaluationDispatcherStats,
} from './evaluation-dispatcher.js';
export { startEvaluationWorker, type EvaluationWorker, type EvaluationWorkerOptions, type EvaluationWorkerStats } from './evaluation-worker.js';
export { createPolicyEvaluateProcessor, type PolicyEvaluateProcessorDeps } from './processors/policy-evaluate.processor.js';
export { createRedisClient, type RedisConnection } from './redis-connection.js';
export {
  ANOMALY_DETECT_SCHEDULER_ID,
  createAnomalyJobQueues,
  DetectionTimeoutError,
  type AnomalyDetectJobData,
  type AnomalyJobQueues,
  type AnomalyJobQueuesOptions,
  type AnomalyVerifyJobData,
  type DetectionRound,
  type DetectionRun,
} from './anomaly-jobs.js';
export { startAnomalyWorkers, type AnomalyWorkers, type AnomalyWorkersOptions } from './anomaly-workers.js';
export { startAnomalyDetectSchedule, type AnomalyDetectSchedule, type AnomalyDetectScheduleOptions } from './anomaly-detect-schedule.js';
export {
  createWorkflowJobQueue,
  startWorkflowWorker,
  WORKFLOW_RUN_JOB_OPTIONS,
  type WorkflowJobQueue,
  type WorkflowRunJobData,
  type WorkflowTurnSize,
  type WorkflowWorker,
} from './workflow-jobs.js';
export { startWorkflowResumeSchedule, type WorkflowResumeSchedule, type WorkflowResumeScheduleOptions } from './workflow-resume-schedule.js';
export { openServiceQueues } from './service-queues.js';
