export { DEFAULT_QUEUE_PREFIX, QUEUE_NAMES, queuePrefix, type QueueName } from './queue-names.js';
export {
  createRedisClient,
  type ClusterNode,
  type RedisClient,
  type RedisClientTuning,
  type RedisClusterConnection,
  type RedisConnection,
} from './redis-connection.js';
export { MAX_CLUSTER_SEED_NODES, parseClusterNodes } from './cluster-nodes.js';
export { groupBySlot, slotTag } from './cluster-slots.js';
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
