import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRedisClient } from '../index.js';

describe('createRedisClient', () => {
  it('opens one server for a URL', () => {
    const client = createRedisClient('redis://127.0.0.1:6379', 'test-one', { lazyConnect: true });
    expect(client).toBeInstanceOf(Redis);
    expect(client.isCluster).toBe(false);
    client.disconnect();
  });

  it('opens a cluster whose every node gets the TLS and credentials of the URL, not its host', () => {
    const client = createRedisClient(
      { clusterNodes: [{ host: '127.0.0.1', port: 7000 }], url: 'rediss://app:pa%40ss@unused:6379' },
      'test-cluster',
      { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 },
    ) as Cluster;
    expect(client).toBeInstanceOf(Cluster);
    expect(client.options).toMatchObject({ enableOfflineQueue: false, lazyConnect: true });
    expect(client.options.redisOptions).toMatchObject({ username: 'app', password: 'pa@ss', tls: {}, connectionName: 'test-cluster', maxRetriesPerRequest: 1 });
    expect(client.options.redisOptions).not.toHaveProperty('host');
    client.disconnect();
  });

  it('leaves TLS and credentials out when the URL has none', () => {
    const client = createRedisClient({ clusterNodes: [{ host: '127.0.0.1', port: 7000 }], url: 'redis://127.0.0.1:6379' }, 'test-plain', { lazyConnect: true }) as Cluster;
    expect(client.options.redisOptions).not.toHaveProperty('tls');
    expect(client.options.redisOptions).not.toHaveProperty('password');
    expect(client.options.redisOptions).toMatchObject({ maxRetriesPerRequest: null });
    client.disconnect();
  });
});
