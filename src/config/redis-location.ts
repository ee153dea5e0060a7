import type { RedisConnection } from '../jobs/index.js';
import type { Config } from './env-schema.js';
import { redactUrl } from './store-location.js';

/** Where this configuration's Redis is: the cluster of REDIS_CLUSTER_NODES when set, else REDIS_URL. */
export function redisConnection(config: Config): RedisConnection {
  return config.REDIS_CLUSTER_NODES === undefined ? config.REDIS_URL : { clusterNodes: config.REDIS_CLUSTER_NODES, url: config.REDIS_URL };
}

/** Where Redis is, for people: its URL with any password masked, or the cluster's seed nodes. */
export function describeRedis(connection: RedisConnection): string {
  if (typeof connection === 'string') return redactUrl(connection);
  const nodes = connection.clusterNodes.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
  return `cluster ${nodes}${new URL(connection.url).protocol === 'rediss:' ? ' (TLS)' : ''}`;
}
