import { describe, expect, it } from 'vitest';
import { describeRedis, loadConfig, redisConnection } from '../index.js';

describe('REDIS_CLUSTER_NODES', () => {
  it('leaves one server by REDIS_URL when unset', () => {
    expect(redisConnection(loadConfig({ REDIS_URL: 'redis://cache:6380' }))).toBe('redis://cache:6380');
  });

  it('reads the seed nodes, IPv6 in brackets, and lends REDIS_URL to the cluster', () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, redis-b.internal:7001,[::1]:7002 ', REDIS_URL: 'rediss://app:s3cret@unused:6379/0' });
    expect(redisConnection(config)).toEqual({
      clusterNodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      url: 'rediss://app:s3cret@unused:6379/0',
    });
    expect(describeRedis(redisConnection(config))).toBe('cluster 10.0.0.1:7000,redis-b.internal:7001,[::1]:7002 (TLS)');
  });

  it.each([
    ['redis-a', 'got entry "redis-a"'],
    ['redis-a:0', 'got entry "redis-a:0"'],
    ['redis-a:70000', 'got entry "redis-a:70000"'],
    [':7000', 'got entry ":7000"'],
    ['redis-a:7000,,redis-b:7001', 'got entry ""'],
    ['redis://redis-a:7000', 'got entry "redis://redis-a:7000"'],
    ['redis-a:7000,redis-a:7000', 'lists the node "redis-a:7000" twice'],
  ])('refuses %j, naming what is wrong', (nodes, problem) => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: nodes })).toThrow(`REDIS_CLUSTER_NODES ${problem.startsWith('got') ? 'must be a comma-separated list of host:port seed nodes (port 1-65535), ' : ''}${problem}`);
  });

  it('refuses more than 64 seed nodes', () => {
    const nodes = Array.from({ length: 65 }, (_, index) => `node-${index}:7000`).join(',');
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: nodes })).toThrow('REDIS_CLUSTER_NODES must list at most 64 seed nodes, got 65');
  });

  it('refuses a REDIS_URL naming a database other than 0 beside a cluster, which has no other', () => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'redis-a:7000', REDIS_URL: 'redis://unused:6379/2' })).toThrow(
      'REDIS_URL may name only database 0 with REDIS_CLUSTER_NODES: a Redis Cluster has no other',
    );
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379/2' }).REDIS_CLUSTER_NODES).toBeUndefined();
  });
});
