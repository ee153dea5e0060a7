import type { RedisClient } from '../jobs/index.js';

/**
 * Word that a tenant has records waiting for their link, for the process holding that tenant's
 * linker lease. A process storing records of a tenant it does not link tells the others over Redis
 * pub/sub; a notice that goes astray costs only time: the holder's sweep finds the records too.
 */
export interface LinkNotices {
  /** Never rejects: the sweep is the fallback. */
  announce(tenantId: string): void;
  close(): Promise<void>;
}

export interface RedisLinkNoticesOptions {
  /** Any connection in normal mode. */
  publisher: RedisClient;
  /** A connection of its own: it goes into subscriber mode. */
  subscriber: RedisClient;
  channel: string;
  /** A tenant named by another process. */
  onNotice(tenantId: string): void;
  onError?: (error: Error) => void;
}

export async function createRedisLinkNotices(options: RedisLinkNoticesOptions): Promise<LinkNotices> {
  const { publisher, subscriber, channel } = options;
  subscriber.on('message', (from: string, tenantId: string) => {
    if (from === channel) options.onNotice(tenantId);
  });
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).catch((error: Error) => options.onError?.(error));
  });
  await subscriber.subscribe(channel);
  return {
    announce(tenantId) {
      publisher.publish(channel, tenantId).catch((error: Error) => options.onError?.(error));
    },
    async close() {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
