import type { RedisClient } from '../jobs/index.js';

/** A module whose active version changed (deploy or rollback), or null: changes may have been missed. */
export type ActivationChange = { tenantId: string; policyModule: string } | null;

/**
 * Word that a module's active version changed, for the caches of active versions in every process.
 * The process that made the change hears it at once; the others over Redis pub/sub.
 */
export interface ActivationNotices {
  /** Tells every listener of every process; never rejects (the caches' time limit is the fallback). */
  announce(tenantId: string, policyModule: string): Promise<void>;
  /** Calls `listener` on each change heard; returns the function that stops listening. */
  listen(listener: (change: ActivationChange) => void): () => void;
  close(): Promise<void>;
}

export interface RedisActivationNoticesOptions {
  /** Any connection in normal mode. */
  publisher: RedisClient;
  /** A connection of its own: it goes into subscriber mode. */
  subscriber: RedisClient;
  channel: string;
  onError?: (error: Error) => void;
}

const SEPARATOR = '\u0000';

export async function createRedisActivationNotices(options: RedisActivationNoticesOptions): Promise<ActivationNotices> {
  const listeners = new Set<(change: ActivationChange) => void>();
  const tell = (change: ActivationChange) => {
    for (const listener of listeners) listener(change);
  };
  const { publisher, subscriber, channel } = options;
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    const [tenantId, policyModule] = message.split(SEPARATOR);
    if (tenantId !== undefined && policyModule !== undefined) tell({ tenantId, policyModule });
  });
  // While the connection was down, notices went past: whatever is cached may be stale. Forget it
  // only once subscribed again, so nothing read in between is kept (ioredis is ready before it
  // resubscribes).
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(
      () => tell(null),
      (error: Error) => options.onError?.(error),
    );
  });
  await subscriber.subscribe(channel);
  return {
    async announce(tenantId, policyModule) {
      tell({ tenantId, policyModule });
      try {
        await publisher.publish(channel, `${tenantId}${SEPARATOR}${policyModule}`);
      } catch (error) {
        options.onError?.(error as Error);
      }
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
