import { redisConnection, type Config } from '../config/index.js';
import { createRedisClient, type RedisClient } from '../jobs/index.js';
import type { Logger } from '../logging/index.js';
import { awaitRedisReady } from './redis-probe.js';

/**
 * Redis for the per-request commands of the API (rate limit, request nonces). Auto-pipelining
 * sends the commands that concurrent requests issue in one event-loop turn as one write, so their
 * cost is paid per turn, not per request. Like the runtime connection it queues nothing while
 * Redis is away: requests fail fast instead.
 */
export async function openRequestRedis(config: Config, logger: Logger): Promise<RedisClient> {
  const connection = redisConnection(config);
  const redis = createRedisClient(connection, 'pe-api-requests', { enableOfflineQueue: false, maxRetriesPerRequest: 1, enableAutoPipelining: true });
  redis.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  await awaitRedisReady(redis, connection);
  return redis;
}
