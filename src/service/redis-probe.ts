import { describeRedis } from '../config/index.js';
import { createRedisClient, type RedisClient, type RedisConnection } from '../jobs/index.js';
import { StartupError } from './startup-error.js';

const REDIS_PROBE_TIMEOUT_MS = 4000;

/** Fails within a few seconds, with the one thing to do, when Redis (or no node of the cluster) is not there. */
export async function probeRedis(connection: RedisConnection): Promise<void> {
  const advice = `redis is not reachable at ${describeRedis(connection)}`;
  const client = createRedisClient(connection, 'pe-probe', {
    lazyConnect: true,
    connectTimeout: REDIS_PROBE_TIMEOUT_MS - 1000,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  let lastError = '';
  client.on('error', (error: Error & { lastNodeError?: Error }) => {
    // A cluster's refusal says why its last node failed (e.g. a server without cluster support).
    lastError = error.lastNodeError === undefined ? error.message : `${error.message} ${error.lastNodeError.message}`;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_PROBE_TIMEOUT_MS} ms`)), REDIS_PROBE_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    const cause = lastError || (error as Error).message;
    const fix = typeof connection === 'string' ? 'start it with `redis-server` or set REDIS_URL' : 'start the cluster or fix REDIS_CLUSTER_NODES';
    throw new StartupError(`${advice} (${cause}): ${fix}`);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

/** Waits for the connection's first `ready`; a connection that does not get there is dropped. */
export async function awaitRedisReady(redis: RedisClient, connection: RedisConnection): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      redis.once('ready', resolve);
      setTimeout(() => reject(new StartupError(`redis at ${describeRedis(connection)} did not become ready`)), REDIS_PROBE_TIMEOUT_MS).unref();
    });
  } catch (error) {
    redis.disconnect();
    throw error;
  }
}
