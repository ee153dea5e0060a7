export { DEFAULT_QUEUE_PREFIX, QUEUE_NAMES, queuePrefix, type QueueName } from './queue-names.js';
export { createRedisClient, type RedisConnection } from './redis-connection.js';
export { openServiceQueues } from './service-queues.js';
export {
  cancelChannelName,
  replyChannelName,
  type PolicyEvaluateCancel,
  type PolicyEvaluateJobData,
  type PolicyEvaluateJobSummary,
  type PolicyEvaluateReply,
} from './policy-evaluate-job.js';
export type { BatchTransport, DeliverResult, SentBatch } from './batch-transport.js';
export { createLocalBatchTransport } from './local-batch-transport.js';
export { DEFAULT_REPLY_MESSAGE_BYTES, replyMessages, type SettledItem } from './reply-messages.js';
export { createRunRegistry, type RunRegistry, type RunRegistryOptions } from './run-registry.js';
