import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** Every Redis user takes either: one server, or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** A seed node of a Redis Cluster: the client learns the others (and the slots) from it. */
export interface ClusterNode {
  host: string;
  port: number;
}

/**
 * A Redis Cluster: its seed nodes, and a `redis:`/`rediss:` URL that lends only its scheme (`rediss:`
 * is TLS), user name and password; its host, port and database are not used.
 */
export interface RedisClusterConnection {
  clusterNodes: readonly ClusterNode[];
  url: string;
}

/** One Redis by URL (`redis://host:6379/0`), or a cluster. */
export type RedisConnection = string | RedisClusterConnection;

/** How a client behaves while Redis does not answer. */
export interface RedisClientTuning {
  /** null (what BullMQ requires) waits for Redis; a number fails a command after that many reconnections. */
  maxRetriesPerRequest?: number | null;
  /** false fails commands at once while not connected, instead of queueing them. */
  enableOfflineQueue?: boolean;
  enableAutoPipelining?: boolean;
  /** Connect on the first command or `connect()`; a probe uses it with no retries. */
  lazyConnect?: boolean;
  connectTimeout?: number;
  /** null: give up after the first failed connection. */
  retryStrategy?: () => null;
}

/** The TLS and credentials of a `redis:`/`rediss:` URL, for each node of a cluster. */
function nodeOptionsOf(url: string): RedisOptions {
  const parsed = new URL(url);
  return {
    ...(parsed.username === '' ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(parsed.password === '' ? {} : { password: decodeURIComponent(parsed.password) }),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * A new client for one role (queue commands, blocking worker reads, pub/sub): each role needs its own
 * connection. `maxRetriesPerRequest: null` is what BullMQ requires; callers bound waits themselves.
 * The one place that decides between one server and a cluster.
 */
export function createRedisClient(connection: RedisConnection, name: string, tuning: RedisClientTuning = {}): RedisClient {
  const { maxRetriesPerRequest = null, retryStrategy, connectTimeout, ...shared } = tuning;
  const perConnection: RedisOptions = {
    connectionName: name,
    maxRetriesPerRequest,
    ...(connectTimeout === undefined ? {} : { connectTimeout }),
  };
  if (typeof connection === 'string') {
    return new Redis(connection, { ...perConnection, ...shared, ...(retryStrategy === undefined ? {} : { retryStrategy }) });
  }
  const options: ClusterOptions = {
    ...shared,
    redisOptions: { ...nodeOptionsOf(connection.url), ...perConnection },
    ...(retryStrategy === undefined ? {} : { clusterRetryStrategy: retryStrategy }),
  };
  return new Cluster(
    connection.clusterNodes.map((node) => ({ ...node })),
    options,
  );
}
