import { Redis, type RedisOptions } from 'ioredis';

/** A Redis URL (`redis://host:6379/0`) or ioredis options. */
export type RedisConnection = string | RedisOptions;

/**
 * A new client for one role (queue commands, blocking worker reads, pub/sub): each role needs its own
 * connection. `maxRetriesPerRequest: null` is what BullMQ requires; callers bound waits themselves.
 */
export function createRedisClient(connection: RedisConnection, name: string): Redis {
  const options: RedisOptions = { maxRetriesPerRequest: null, connectionName: name };
  return typeof connection === 'string' ? new Redis(connection, options) : new Redis({ ...connection, ...options });
}
