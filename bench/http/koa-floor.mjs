// The floor of the HTTP benchmark: the least any signed evaluate-source answer costs before the
// service does anything of its own. A Koa app that reads the body, verifies the request signature
// with the service's own code, claims the nonce in Redis (one SET NX, auto-pipelined), parses the
// JSON and answers a fixed result. No routing, rate limiting, queue, evaluation or audit record:
// (b) can approach this run but never pass it. Prints its port on stdout once listening.
import Koa from 'koa';
import { Redis } from 'ioredis';
import { verifySignature } from '../../dist/src/auth/request-signature.js';

const { FLOOR_SECRET: secret, REDIS_URL: redisUrl, FLOOR_KEY_PREFIX: keyPrefix } = process.env;
if (!secret || !redisUrl || !keyPrefix) throw new Error('koa-floor needs FLOOR_SECRET, REDIS_URL and FLOOR_KEY_PREFIX');
const redis = new Redis(redisUrl, { enableAutoPipelining: true });
const ANSWER = { result: { approved: true }, error: null, executionTimeMs: 0 };

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const app = new Koa();
app.use(async (ctx) => {
  const body = await readBody(ctx.req);
  const tenantId = ctx.get('x-tenant-id');
  const verified = verifySignature({
    signatureHeader: ctx.get('x-policy-signature'),
    timestamp: ctx.get('x-policy-timestamp'),
    nonce: ctx.get('x-policy-nonce'),
    method: ctx.method,
    pathWithQuery: ctx.originalUrl,
    body,
    tenantId,
    role: ctx.get('x-user-role'),
    secrets: [secret],
  });
  const fresh = verified.ok && (await redis.set(`${keyPrefix}${tenantId}:${verified.nonce}`, '1', 'EX', 600, 'NX')) === 'OK';
  if (!fresh) {
    ctx.status = 403;
    ctx.body = { error: 'signature or nonce refused' };
    return;
  }
  JSON.parse(body.toString('utf8'));
  ctx.body = ANSWER;
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => redis.quit().finally(() => process.exit(0))));
