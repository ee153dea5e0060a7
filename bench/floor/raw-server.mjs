// A server of the service's promises built from raw parts only (node:http, node:crypto, BullMQ,
// ioredis, worker_threads, better-sqlite3; nothing of src/ or dist/), one promise added per stage:
//   FLOOR_STAGE=1  node:http, JSON body parse, bearer check (HS256 JWT), the evaluation inline
//   FLOOR_STAGE=2  + the audit record committed before the answer leaves
//   FLOOR_STAGE=3  + the queue hop: the evaluation travels as part of a BullMQ job and back
//   FLOOR_STAGE=4  + the thread hop: the job's items are evaluated on a worker_threads thread
//   FLOOR_STAGE=5  stage 4 in two processes (FLOOR_PROCESS=api: HTTP, bearer, queue sender and the
//                  audit record; FLOOR_PROCESS=worker: the BullMQ worker and the thread), as the
//                  service's `api` and `worker` roles place them
//   FLOOR_STAGE=6  the same, with the audit record written by the worker before it replies
// Stages 1-4 run the BullMQ worker in this process, as the service's role `all`. The evaluation
// is the plain JS loan function of bench/language. Prints its port (a worker process: `ready`) on
// stdout once listening; on SIGTERM prints one JSON line of counts (jobs, items, audit records)
// and exits.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { priceInJs } from '../language/loan-pricing.mjs';
import { openAuditWriter } from './audit-writer.mjs';
import { verifyBearer } from './hs256.mjs';
import { openQueueSender, startQueueWorker } from './queue-hop.mjs';
import { startEvaluationThread } from './thread-hop.mjs';

const { FLOOR_STAGE, FLOOR_JWT_SECRET: jwtSecret, REDIS_URL: redisUrl, FLOOR_PREFIX: prefix, FLOOR_PROCESS: role = 'all' } = process.env;
const stage = Number(FLOOR_STAGE);
if (![1, 2, 3, 4, 5, 6].includes(stage) || !jwtSecret || !redisUrl || !prefix) throw new Error('raw-server needs FLOOR_STAGE (1-6), FLOOR_JWT_SECRET, REDIS_URL and FLOOR_PREFIX');
if (!(stage <= 4 ? role === 'all' : role === 'api' || role === 'worker')) throw new Error('FLOOR_PROCESS is api or worker for stages 5 and 6, and unset below');
const serves = role !== 'worker';
const works = role !== 'api';

const dataDir = mkdtempSync(join(tmpdir(), 'pe-raw-floor-'));
const TENANT_ROLE = 'MEMBER';
const auditHere = stage >= 2 && (stage === 6 ? works : serves);
const audit = auditHere ? openAuditWriter(join(dataDir, 'audit.sqlite'), 'floor') : null;
const thread = stage >= 4 && works ? startEvaluationThread() : null;
/** The worker's side of a job: evaluate, then (stage 6) store each item's record before the reply leaves. */
async function evaluateAll(contexts, notes) {
  const started = performance.now();
  const results = thread ? await thread.evaluate(contexts) : contexts.map(priceInJs);
  if (stage === 6) {
    const executionTimeMs = (performance.now() - started) / contexts.length;
    await Promise.all(notes.map((note) => audit.append(evaluatedEvent(note, executionTimeMs))));
  }
  return results;
}
const worker = stage >= 3 && works ? await startQueueWorker({ redisUrl, prefix, evaluateAll }) : null;
const sender = stage >= 3 && serves ? await openQueueSender({ redisUrl, prefix }) : null;
const evaluate = sender ? sender.evaluate : async (context) => priceInJs(context);

/** The service's record of a deployed policy's evaluation: no context, what ran and how it went. Payload keys in canonical (sorted) order. */
function evaluatedEvent({ policyModule, policyFunction, actorId }, executionTimeMs) {
  return {
    eventType: 'POLICY_EVALUATED',
    policyModule,
    policyFunction,
    actorId,
    payload: { executionTimeMs, policyFunction, policyModule, success: true, version: 1, versionId: 'raw-floor-v1' },
  };
}

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function handle(req, body) {
  const tenantId = req.headers['x-tenant-id'];
  const claims = verifyBearer(jwtSecret, req.headers.authorization, Date.now() / 1000);
  if (claims === null || claims.tenantId !== tenantId || !claims.roles?.includes(TENANT_ROLE)) return [401, '{"error":"unauthorized"}'];
  let request;
  try {
    request = JSON.parse(body);
  } catch {
    return [400, '{"error":"body is not JSON"}'];
  }
  const note = { policyModule: request.policyModule, policyFunction: request.policyFunction, actorId: claims.sub };
  const started = performance.now();
  const result = await evaluate(request.context, note);
  const executionTimeMs = performance.now() - started;
  await audit?.append(evaluatedEvent(note, executionTimeMs));
  return [200, JSON.stringify({ result, error: null, executionTimeMs })];
}

const server = serves ? createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    handle(req, Buffer.concat(chunks).toString('utf8')).then(
      ([status, body]) => answer(res, status, body),
      (error) => answer(res, 500, JSON.stringify({ error: String(error) })),
    );
  });
}) : null;
if (server) server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
else process.stdout.write('ready\n');

process.on('SIGTERM', () =>
  (server ?? { close: (done) => done() }).close(async () => {
    await sender?.close();
    await worker?.close();
    await thread?.close();
    const counts = { jobs: sender?.stats.jobs ?? 0, items: sender?.stats.items ?? 0, records: audit?.count() ?? 0 };
    audit?.close();
    rmSync(dataDir, { recursive: true, force: true });
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`*${prefix}*`);
    // In slices: one DEL of every nonce key of a run would pass more arguments than a call can take.
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    await redis.quit();
    process.stdout.write(`${JSON.stringify(counts)}\n`);
    process.exit(0);
  }),
);
