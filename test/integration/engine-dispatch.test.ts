// API-side dispatcher → real Redis (BullMQ) → worker → real worker threads, and back. Needs
// `npx tsc -p tsconfig.json` first (threads load dist/workers/evaluation-thread.js).
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnginePool, type EnginePool, type EvaluationItem } from '../../src/engine/index.js';
import {
  EvaluationUnavailableError,
  EvaluationWorkerError,
  NoWorkerAvailableError,
  QUEUE_NAMES,
  createEvaluationDispatcher,
  createRedisClient,
  queuePrefix,
  startEvaluationWorker,
  type EvaluationDispatcher,
  type EvaluationWorker,
} from '../../src/jobs/index.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const SOURCE = `Module test.dispatch.

Rule double given x as Int, produce Int:
  Return x times 2.

Rule check given x as Int, produce Int:
  If x is greater than 100:
    Fail with "too large".
  Return x.
`;

const item = (functionName: string, x: number): EvaluationItem => ({ source: SOURCE, locale: 'en-US', functionName, context: { x } });
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

const prefixes: string[] = [];
function newPrefix(): string {
  const prefix = `test-${randomUUID()}`;
  prefixes.push(prefix);
  return prefix;
}

let pool: EnginePool;
let worker: EvaluationWorker;
let prefix: string;
const dispatchers: EvaluationDispatcher[] = [];
function dispatcher(options: Parameters<typeof createEvaluationDispatcher>[0]): EvaluationDispatcher {
  const created = createEvaluationDispatcher(options);
  dispatchers.push(created);
  return created;
}

beforeAll(async () => {
  prefix = newPrefix();
  pool = createEnginePool({ threads: 2 });
  worker = await startEvaluationWorker({ connection: REDIS_URL, pool, prefix, concurrency: 4 });
});

afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.close()));
  await worker?.close();
  await pool?.close();
  for (const used of prefixes) await withQueue(used, (queue) => queue.obliterate({ force: true }));
});

async function withQueue<T>(queuePrefixBase: string, use: (queue: Queue) => Promise<T>): Promise<T> {
  const client = createRedisClient(REDIS_URL, 'test-inspect');
  const queue = new Queue(QUEUE_NAMES.policyEvaluate, { connection: client, prefix: queuePrefix(QUEUE_NAMES.policyEvaluate, queuePrefixBase) });
  try {
    return await use(queue);
  } finally {
    await queue.close();
    await client.quit();
  }
}

describe('evaluation dispatch through the queue', () => {
  it('coalesces concurrent evaluate() calls into fewer jobs, each caller getting its own result', async () => {
    const api = dispatcher({ connection: REDIS_URL, prefix, maxBatchItems: 16, flushMs: 1, responseTimeoutMs: 10_000 });
    const jobsBefore = worker.stats().jobs;
    const results = await Promise.all(range(40).map((x) => api.evaluate(item('double', x))));

    expect(results.map((r) => r.value)).toEqual(range(40).map((x) => x * 2));
    const { batches, items } = api.stats();
    expect(items).toBe(40);
    expect(batches).toBeLessThan(40);
    expect(worker.stats().jobs - jobsBefore).toBe(batches);
  });

  it('keeps input order across several jobs and isolates failed items', async () => {
    const api = dispatcher({ connection: REDIS_URL, prefix, maxBatchItems: 8, flushMs: 1, responseTimeoutMs: 10_000 });
    const inputs = range(30).map((x) => (x % 7 === 3 ? item('check', 1000 + x) : item('double', x)));
    const results = await api.evaluateMany(inputs);

    expect(api.stats().batches).toBe(4);
    results.forEach((result, x) => {
      if (x % 7 === 3) {
        expect(result).toMatchObject({ ok: false, value: null });
        expect(result.error).toMatch(/^PL3004 /);
      } else {
        expect(result).toMatchObject({ ok: true, value: x * 2, error: null });
      }
    });
  });

  it('rejects with NoWorkerAvailableError when no worker answers, and drops the orphan job', async () => {
    const lonely = newPrefix();
    const api = dispatcher({ connection: REDIS_URL, prefix: lonely, responseTimeoutMs: 300 });
    const outcome = await Promise.allSettled([api.evaluate(item('double', 1)), api.evaluate(item('double', 2))]);

    for (const settled of outcome) {
      expect(settled.status).toBe('rejected');
      const reason = (settled as PromiseRejectedResult).reason as Error;
      expect(reason).toBeInstanceOf(NoWorkerAvailableError);
      expect(reason).toBeInstanceOf(EvaluationUnavailableError);
      expect(reason.message).toBe('no evaluation worker answered within 300 ms');
    }
    // Removal follows the rejection without delaying it: poll until it has happened.
    const waiting = await withQueue(lonely, async (queue) => {
      let count = -1;
      for (let attempt = 0; attempt < 50 && count !== 0; attempt++) {
        count = (await queue.getJobCounts('waiting')).waiting ?? 0;
        if (count !== 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return count;
    });
    expect(waiting).toBe(0);
  });

  it('reports an engine-wide worker failure at once instead of timing out', async () => {
    const broken = newPrefix();
    const closedPool = createEnginePool({ threads: 1 });
    await closedPool.close();
    const brokenWorker = await startEvaluationWorker({ connection: REDIS_URL, pool: closedPool, prefix: broken, concurrency: 1 });
    try {
      const api = dispatcher({ connection: REDIS_URL, prefix: broken, responseTimeoutMs: 25_000 });
      const error = await api.evaluate(item('double', 1)).then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(EvaluationWorkerError);
      expect((error as Error).message).toBe('evaluation worker failed: the evaluation engine is closed');
    } finally {
      await brokenWorker.close();
    }
  });

  it('runs batches on an in-process pool when given one instead of a connection', async () => {
    const api = dispatcher({ pool, maxBatchItems: 64, flushMs: 1 });
    const results = await Promise.all(range(10).map((x) => api.evaluate(item('double', x))));
    expect(results.map((r) => r.value)).toEqual(range(10).map((x) => x * 2));
    expect(api.stats().batches).toBeLessThan(10);
  });
});
