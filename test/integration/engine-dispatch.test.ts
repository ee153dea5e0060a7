// API-side dispatcher → real Redis (BullMQ) → worker → real worker threads, and back. Needs
// `npx tsc -p tsconfig.json` first (threads load dist/workers/evaluation-thread.js).
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createEnginePool,
  EngineFailureCode,
  toBatch,
  type EnginePool,
  type EnginePoolOptions,
  type EvaluateRequest,
  type ItemResult,
} from '../../src/engine/index.js';
import {
  createCallerGone,
  createEvaluationDispatcher,
  createRedisBatchTransport,
  EvaluationUnavailableError,
  EvaluationWorkerError,
  NoWorkerAvailableError,
  startEvaluationWorker,
  type EvaluationDispatcher,
  type EvaluationDispatcherOptions,
  type EvaluationWorker,
  type EvaluationWorkerOptions,
} from '../../src/evaluation/index.js';
import { createLocalBatchTransport, createRedisClient, QUEUE_NAMES, queuePrefix } from '../../src/jobs/index.js';
import { evaluateRequest, evaluation, REDIS_URL, removeRedisPrefix } from '../support/index.js';
import { RUNAWAY_SOURCE } from './evaluation-support/policies.js';

const SOURCE = `Module test.dispatch.

Rule double given x as Int, produce Int:
  Return x times 2.

Rule check given x as Int, produce Int:
  If x is greater than 100:
    Fail with "too large".
  Return x.
`;

const ECHO = `Module test.echo.

Rule echo given s as Text, produce Text:
  Return s.
`;

// Three nested loops: 10^9 turns for 1,000 elements, so only the wall-time limit ends it.
const RUNAWAY = RUNAWAY_SOURCE;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const item = (functionName: string, x: number, extra: Partial<EvaluateRequest> = {}) => evaluateRequest(SOURCE, functionName, { x }, extra);
const runaway = () => evaluateRequest(RUNAWAY, 'spin', { xs: range(1000) }, { tenantId: 'tenant-busy' });
const valueOf = (result: ItemResult | undefined) => {
  const outcome = evaluation(result);
  return outcome.ok ? outcome.value : null;
};
const codeOf = (result: ItemResult | undefined) => (result && !result.ok ? result.code : null);

const prefixes: string[] = [];
function newPrefix(): string {
  const prefix = `test-${randomUUID()}`;
  prefixes.push(prefix);
  return prefix;
}

const dispatchers: EvaluationDispatcher[] = [];
function dispatcher(options: EvaluationDispatcherOptions): EvaluationDispatcher {
  const created = createEvaluationDispatcher(options);
  dispatchers.push(created);
  return created;
}
function redisDispatcher(queue: string, responseTimeoutMs: number, options: Partial<EvaluationDispatcherOptions> = {}): EvaluationDispatcher {
  return dispatcher({ transport: createRedisBatchTransport({ connection: REDIS_URL, prefix: queue, responseTimeoutMs }), ...options });
}

const ownedPools: EnginePool[] = [];
const ownedWorkers: EvaluationWorker[] = [];
/** A pool and a worker of their own on a queue of their own. */
async function startBackend(poolOptions: EnginePoolOptions, workerOptions: Partial<EvaluationWorkerOptions> = {}) {
  const queue = newPrefix();
  const backendPool = createEnginePool(poolOptions);
  ownedPools.push(backendPool);
  const backendWorker = await startEvaluationWorker({ connection: REDIS_URL, pool: backendPool, prefix: queue, ...workerOptions });
  ownedWorkers.push(backendWorker);
  return { queue, pool: backendPool, worker: backendWorker };
}

let pool: EnginePool;
let worker: EvaluationWorker;
let prefix: string;

beforeAll(async () => {
  prefix = newPrefix();
  pool = createEnginePool({ threads: 2 });
  worker = await startEvaluationWorker({ connection: REDIS_URL, pool, prefix, concurrency: 4 });
});

afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.close()));
  await Promise.all([worker, ...ownedWorkers].map((w) => w?.close()));
  await Promise.all([pool, ...ownedPools].map((p) => p?.close()));
  for (const used of prefixes) await removeRedisPrefix(used);
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
  it('coalesces concurrent dispatch() calls into fewer jobs, each caller getting its own result', async () => {
    const api = redisDispatcher(prefix, 10_000, { maxBatchItems: 16, flushMs: 1 });
    const jobsBefore = worker.stats().jobs;
    const results = await Promise.all(range(40).map((x) => api.dispatch([item('double', x)])));

    expect(results.map(([r]) => valueOf(r))).toEqual(range(40).map((x) => x * 2));
    const { batches, items } = api.stats();
    expect(items).toBe(40);
    expect(batches).toBeLessThan(40);
    expect(worker.stats().jobs - jobsBefore).toBe(batches);
  });

  it('keeps input order across several jobs and isolates failed items', async () => {
    const api = redisDispatcher(prefix, 10_000, { maxBatchItems: 8, flushMs: 1 });
    const inputs = range(30).map((x) => (x % 7 === 3 ? item('check', 1000 + x) : item('double', x, { tenantId: `tenant-${x % 3}` })));
    const results = await api.dispatch(inputs);

    expect(api.stats().batches).toBe(4);
    results.forEach((result, x) => {
      if (x % 7 === 3) {
        expect(result).toMatchObject({ kind: 'evaluated', ok: false, code: 'PL3004' });
        expect(evaluation(result).ok ? null : (result as { error: string }).error).toMatch(/^PL3004 /);
      } else {
        expect(result).toMatchObject({ kind: 'evaluated', ok: true, value: x * 2, moduleName: 'test.dispatch' });
      }
    });
  });

  it('carries compile requests like evaluations', async () => {
    const api = redisDispatcher(prefix, 10_000);
    const [compiled, evaluated] = await api.dispatch([{ kind: 'compile', tenantId: 'tenant-a', source: SOURCE, locale: 'en' }, item('double', 4)]);
    expect(compiled).toMatchObject({
      kind: 'compiled',
      ok: true,
      module: { moduleName: 'test.dispatch', locale: 'en-US', functions: [{ name: 'double' }, { name: 'check' }] },
    });
    expect(valueOf(evaluated)).toBe(8);
  });

  it('rejects with NoWorkerAvailableError when no worker answers, and drops the orphan job', async () => {
    const lonely = newPrefix();
    const api = redisDispatcher(lonely, 300);
    const outcome = await Promise.allSettled([api.dispatch([item('double', 1)]), api.dispatch([item('double', 2)])]);

    for (const settled of outcome) {
      expect(settled.status).toBe('rejected');
      const reason = (settled as PromiseRejectedResult).reason as Error;
      expect(reason).toBeInstanceOf(NoWorkerAvailableError);
      expect(reason).toBeInstanceOf(EvaluationUnavailableError);
      expect(reason.message).toBe('no evaluation worker answered within 300 ms');
    }
    // Removal follows the rejection without delaying it: poll until it has happened.
    await vi.waitFor(
      async () => {
        const counts = await withQueue(lonely, (queue) => queue.getJobCounts('waiting'));
        expect(counts.waiting ?? 0).toBe(0);
      },
      { timeout: 5000, interval: 20 },
    );
  });

  it('reports an engine-wide worker failure at once instead of timing out', async () => {
    const broken = newPrefix();
    const closedPool = createEnginePool({ threads: 1 });
    await closedPool.close();
    const brokenWorker = await startEvaluationWorker({ connection: REDIS_URL, pool: closedPool, prefix: broken, concurrency: 1 });
    try {
      const api = redisDispatcher(broken, 25_000);
      const error = await api.dispatch([item('double', 1)]).then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(EvaluationWorkerError);
      expect((error as Error).message).toBe('evaluation worker failed: the evaluation engine is closed');
    } finally {
      await brokenWorker.close();
    }
  });

  it('never sends the items of a caller that went away before its batch left', async () => {
    const api = redisDispatcher(prefix, 10_000, { flushMs: 50 });
    const jobsBefore = worker.stats().jobs;
    const controller = createCallerGone();
    const gone = api.dispatch([item('double', 1), item('double', 2)], { gone: controller });
    controller.markGone(new Error('client disconnected'));
    await expect(gone).rejects.toThrow('client disconnected');
    // A later call travels alone: the abandoned items never reached the queue.
    const [kept] = await api.dispatch([item('double', 3)]);
    expect(valueOf(kept)).toBe(6);
    expect(api.stats()).toMatchObject({ batches: 1, items: 1 });
    expect(worker.stats().jobs - jobsBefore).toBe(1);
  });

  it('runs batches on an in-process pool through the local transport', async () => {
    const api = dispatcher({ transport: createLocalBatchTransport(pool), maxBatchItems: 64, flushMs: 1 });
    const results = await Promise.all(range(10).map((x) => api.dispatch([item('double', x)])));
    expect(results.map(([r]) => valueOf(r))).toEqual(range(10).map((x) => x * 2));
    expect(api.stats().batches).toBeLessThan(10);
  });
});

describe('cancellation through the cancel channel', () => {
  it('cancels the queued items of a batch whose caller timed out while the only thread was busy', async () => {
    const backend = await startBackend({ threads: 1, taskTimeoutMs: 1500, stepBudget: Number.MAX_SAFE_INTEGER });
    // The thread is held by a runaway item until its time limit ends it.
    const busy = backend.pool.run(toBatch([runaway()]));
    const api = redisDispatcher(backend.queue, 300);
    const sent = range(20).map((x) => item('double', x));
    const outcome = await api.dispatch(sent).then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(outcome).toBeInstanceOf(NoWorkerAvailableError);

    // The worker hears the cancellation while the runaway still holds the thread.
    await vi.waitFor(() => expect(backend.pool.stats().cancelledItems).toBe(sent.length), { timeout: 2500, interval: 10 });
    expect(backend.pool.stats().queuedItems).toBe(0);
    const [busyResult] = await busy.results;
    expect(busyResult!.ok).toBe(false);
    // Nothing of the cancelled batch ran: no item reached a thread's program cache.
    const { cacheHits, cacheMisses, items } = backend.pool.stats();
    expect(cacheHits + cacheMisses).toBe(0);
    expect(items).toBe(sent.length + 1);
    await vi.waitFor(() => expect(backend.worker.stats().jobs).toBe(1), { interval: 10 });
  });

  it("cancels on the worker the items of a caller that went away after its batch left, and answers the others", async () => {
    const backend = await startBackend({ threads: 1, taskTimeoutMs: 1500, stepBudget: Number.MAX_SAFE_INTEGER });
    const busy = backend.pool.run(toBatch([runaway()]));
    const api = redisDispatcher(backend.queue, 20_000, { flushMs: 5 });
    const controller = createCallerGone();
    const gone = api.dispatch(range(6).map((x) => item('double', x)), { gone: controller });
    const stays = api.dispatch([item('double', 100)]);
    // Both calls share one job, queued in the pool behind the runaway.
    await vi.waitFor(() => expect(backend.pool.stats().queuedItems).toBe(7), { timeout: 2500, interval: 10 });
    controller.markGone(new Error('client disconnected'));
    await expect(gone).rejects.toThrow('client disconnected');
    await vi.waitFor(() => expect(backend.pool.stats().cancelledItems).toBe(6), { timeout: 2500, interval: 10 });

    const [kept] = await stays;
    expect(valueOf(kept)).toBe(200);
    await busy.results;
    expect(backend.pool.stats().cacheHits + backend.pool.stats().cacheMisses).toBe(1);
  });
});

describe('bounded reply messages', () => {
  it('delivers results larger in total than a reply message, complete and in order', async () => {
    const backend = await startBackend({ threads: 2 }, { maxReplyBytes: 256 * 1024 });
    const published: number[] = [];
    // Count the reply messages the worker sends, by size, without touching their content.
    const spy = createRedisClient(REDIS_URL, 'test-reply-spy');
    await spy.psubscribe(`*${backend.queue}*:reply:*`);
    spy.on('pmessage', (_pattern: string, _channel: string, message: string) => published.push(Buffer.byteLength(message)));
    try {
      const api = redisDispatcher(backend.queue, 20_000, { maxBatchItems: 64, flushMs: 1 });
      const texts = range(64).map((i) => `${i}:`.padEnd(100_000, String.fromCharCode(97 + (i % 26))));
      const results = await api.dispatch(texts.map((s) => evaluateRequest(ECHO, 'echo', { s })));

      expect(api.stats().batches).toBe(1);
      expect(results.map(valueOf)).toEqual(texts);
      await vi.waitFor(() => expect(published.length).toBeGreaterThanOrEqual(16), { interval: 10 });
      for (const bytes of published) expect(bytes).toBeLessThanOrEqual(256 * 1024);
    } finally {
      await spy.quit();
    }
  });
});

describe('failure codes of the engine through the queue', () => {
  it('answers a malformed job item with ERR_EVALUATION_ITEM_INVALID and the rest normally', async () => {
    const api = redisDispatcher(prefix, 10_000);
    const [bad, good] = await api.dispatch([{ ...item('double', 1), tenantId: '' }, item('double', 2)]);
    expect(codeOf(bad)).toBe(EngineFailureCode.ITEM_INVALID);
    expect(valueOf(good)).toBe(4);
  });
});
