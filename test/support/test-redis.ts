// The shared Redis of the test machine: every suite works under its own key prefix and removes it.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { DEFAULT_REDIS_URL } from '../../src/config/index.js';
import { createRedisClient, QUEUE_NAMES, queuePrefix } from '../../src/jobs/index.js';

export const REDIS_URL = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;

/** A connection that is ready to use. */
export async function connectRedis(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
}

/** Removes the `policy-evaluate` queue and every key under `prefix`. */
export async function removeRedisPrefix(prefix: string): Promise<void> {
  const inspect = createRedisClient(REDIS_URL, 'test-cleanup');
  const queue = new Queue(QUEUE_NAMES.policyEvaluate, { connection: inspect, prefix: queuePrefix(QUEUE_NAMES.policyEvaluate, prefix) });
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  const keys = await inspect.keys(`*${prefix}*`);
  if (keys.length > 0) await inspect.del(...keys);
  await inspect.quit();
}
