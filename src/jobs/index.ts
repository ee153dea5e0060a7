export { DEFAULT_QUEUE_PREFIX, QUEUE_NAMES, queuePrefix, type QueueName } from './queue-names.js';
export { createRedisClient, type RedisConnection } from './redis-connection.js';
export { openServiceQueues } from './service-queues.js';
export type { BatchTransport, DeliverResult, SentBatch } from './batch-transport.js';
export { createLocalBatchTransport } from './local-batch-transport.js';
export { startTurnSchedule, type TurnSchedule } from './turn-schedule.js';
export {
  appendNoticeChannel,
  AUDIT_CHAIN_LOG,
  createAppendAnnouncer,
  createAppendListeners,
  workflowLog,
  type AnnounceAppend,
  type AppendListeners,
} from './append-notices.js';
