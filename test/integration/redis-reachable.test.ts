// The suites' Redis answers at REDIS_URL (the machine's, or the private one the global setup
// started): the process test of that setup runs this file in a network namespace without Redis.
import { describe, expect, it } from 'vitest';
import { connectRedis, REDIS_URL } from '../support/index.js';

describe('the Redis of the test run', () => {
  it('answers PING at REDIS_URL', async () => {
    const redis = await connectRedis();
    try {
      expect(await redis.ping()).toBe('PONG');
      process.stdout.write(`redis of this run: ${REDIS_URL}\n`);
    } finally {
      redis.disconnect();
    }
  });
});
