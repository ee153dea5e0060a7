// The floor of the HTTP benchmark: the least any signed evaluate-source answer costs before the
// service does anything of its own. A Koa app that reads the body, verifies the request signature
// with the service's own code, claims the nonce in Redis (one SET NX, auto-pipelined), parses the
// JSON and answers a fixed result. No routing, rate limiting, queue, evaluation or audit record:
// (b) can approach this run but never pass it. Prints its port on stdout once listening.
import Koa from 'koa';
import { Redis } from 'ioredis';
import { signedFloorCheck } from '../support/signed-floor.mjs';

const { FLOOR_SECRET: secret, REDIS_URL: redisUrl, FLOOR_KEY_PREFIX: keyPrefix } = process.env;
if (!secret || !redisUrl || !keyPrefix) throw new Error('koa-floor needs FLOOR_SECRET, REDIS_URL and FLOOR_KEY_PREFIX');
const redis = new Redis(redisUrl, { enableAutoPipelining: true });
const ANSWER = { result: { approved: true }, error: null, executionTimeMs: 0 };

const signedFloor = signedFloorCheck({ secret, redis, keyPrefix });

const app = new Koa();
app.use(async (ctx) => {
  const verified = await signedFloor(ctx);
  if (verified === null) return;
  JSON.parse(verified.body.toString('utf8'));
  ctx.body = ANSWER;
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => redis.quit().finally(() => process.exit(0))));
