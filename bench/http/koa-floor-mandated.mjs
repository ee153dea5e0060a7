// The floor of what every answer of the service must do, whatever its code: the floor run
// (koa-floor.mjs: body, signature check with the service's code, nonce claimed in Redis, JSON
// parse) plus the two things the service promises for every evaluation: it travels through the
// BullMQ `policy-evaluate` queue (the service's own dispatcher, transport and worker; micro-batched
// as in the service) and its answer's audit record is stored before it leaves (the service's own
// recorder on SQLite; its linker chains the records after the insert, as in the service). The worker's engine is replaced by one that answers
// every item at once on the worker's main thread: no thread hop, no evaluation, no rate limit, no
// rollups, no routing. If OPA is faster than this, no change inside those stages can catch it up.
// Prints its port on stdout once listening.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { Redis } from 'ioredis';
import { signedFloorCheck } from '../support/signed-floor.mjs';
import { createAuditTrail } from '../../dist/src/audit/index.js';
import {
  createEvaluationDispatcher,
  createRedisBatchTransport,
  sourceEvaluatedEvent,
  sourceHash,
  startEvaluationWorker,
} from '../../dist/src/evaluation/index.js';
import { openSqliteStore } from '../../dist/src/store/index.js';

const { FLOOR_SECRET: secret, REDIS_URL: redisUrl, FLOOR_KEY_PREFIX: keyPrefix } = process.env;
if (!secret || !redisUrl || !keyPrefix) throw new Error('koa-floor-mandated needs FLOOR_SECRET, REDIS_URL and FLOOR_KEY_PREFIX');
const redis = new Redis(redisUrl, { enableAutoPipelining: true });
const queuePrefix = `${keyPrefix}queue`;
// FLOOR_PARTS=queue or =audit keeps one of the two (to see which costs what); both by default.
const parts = new Set((process.env.FLOOR_PARTS ?? 'queue,audit').split(','));

const VALUE = { approved: true, reason: 'ok', rateBps: 475, maxAmount: 20000 };
const ANSWER_JSON = JSON.stringify({ kind: 'evaluated', ok: true, value: VALUE, moduleName: 'bench.loan', executionTimeMs: 0 });
/** An engine that answers at once, for the worker: the queue hop without any evaluation. */
const answeringPool = {
  size: 2,
  taskTimeoutMs: 1000,
  run(batch, options = {}) {
    const results = batch.items.map(() => ({ ok: true, json: ANSWER_JSON }));
    results.forEach((result, position) => options.onResult?.(position, result));
    return { results: Promise.resolve(results), cancel() {} };
  },
};

const dataDir = mkdtempSync(join(tmpdir(), 'pe-floor-mandated-'));
const store = await openSqliteStore(join(dataDir, 'audit.sqlite'));
const trail = createAuditTrail(store.auditLinks);
const audit = trail.recorder;
const worker = await startEvaluationWorker({ connection: redisUrl, pool: answeringPool, prefix: queuePrefix });
const dispatcher = createEvaluationDispatcher({ transport: createRedisBatchTransport({ connection: redisUrl, prefix: queuePrefix, responseTimeoutMs: 10_000 }) });

const signedFloor = signedFloorCheck({ secret, redis, keyPrefix });

const app = new Koa();
app.use(async (ctx) => {
  const verified = await signedFloor(ctx);
  if (verified === null) return;
  const { body, tenantId } = verified;
  const request = JSON.parse(body.toString('utf8'));
  const [result] = parts.has('queue')
    ? await dispatcher.dispatch([{ kind: 'evaluate', tenantId, source: request.source, locale: request.locale, functionName: request.functionName, context: request.context }])
    : [JSON.parse(ANSWER_JSON)];
  if (parts.has('audit')) await audit.append(tenantId, sourceEvaluatedEvent(`signed:${tenantId}`, request, sourceHash(request.source), result));
  ctx.body = { result: result.value, error: null, executionTimeMs: result.executionTimeMs };
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () =>
  server.close(async () => {
    await dispatcher.close();
    await worker.close();
    await trail.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    const keys = await redis.keys(`*${keyPrefix}*`);
    // In slices: one DEL of every nonce key of a run would pass more arguments than a call can take.
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    await redis.quit();
    process.exit(0);
  }),
);
