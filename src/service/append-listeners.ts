import { redisConnection, type Config } from '../config/index.js';
import { appendNoticeChannel, createAppendListeners, createRedisClient, type AppendListeners } from '../jobs/index.js';
import type { Logger } from '../logging/index.js';

/** The API's one subscriber connection to the append notices of every process, for its streams. */
export async function openAppendListeners(config: Config, logger: Logger): Promise<AppendListeners> {
  const subscriber = createRedisClient(redisConnection(config), 'pe-append-notices');
  subscriber.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  try {
    return await createAppendListeners({
      subscriber,
      channel: appendNoticeChannel(config.REDIS_KEY_PREFIX),
      onError: (error) => logger.warn({ err: error }, 'append notices: Redis failed (streams read on their timer)'),
    });
  } catch (error) {
    subscriber.disconnect();
    throw error;
  }
}
