import { redisConnection } from '../config/index.js';
import { createEnginePool, EngineThreadFileMissingError, type EnginePool } from '../engine/index.js';
import { startEvaluationWorker } from '../evaluation/index.js';
import { observeWorker } from '../metrics/index.js';
import type { RunningPart } from './running-part.js';
import type { Runtime } from './runtime.js';
import { StartupError } from './startup-error.js';

/** The `policy-evaluate` consumer: a thread pool running the interpreter, fed by BullMQ. */
export async function startEvaluationProcessor({ config, logger, metrics }: Runtime): Promise<RunningPart> {
  let pool: EnginePool;
  try {
    pool = createEnginePool({
      threads: config.ENGINE_THREADS,
      taskTimeoutMs: config.EVALUATION_TIMEOUT_MS,
      stepBudget: config.EVALUATION_STEP_BUDGET,
      cacheSize: config.PROGRAM_CACHE_SIZE,
      cacheTenants: config.PROGRAM_CACHE_TENANTS,
      taskSliceMs: config.ENGINE_TASK_SLICE_MS,
      maxResultBytes: config.EVALUATION_MAX_RESULT_BYTES,
      maxTraceBytes: config.EVALUATION_MAX_TRACE_BYTES,
      ...(config.ENGINE_THREAD_MAX_MEMORY_MB !== undefined ? { maxThreadMemoryMb: config.ENGINE_THREAD_MAX_MEMORY_MB } : {}),
    });
  } catch (error) {
    if (error instanceof EngineThreadFileMissingError) throw new StartupError(error.message);
    throw error;
  }
  const concurrency = config.WORKER_CONCURRENCY ?? 16 * config.ENGINE_THREADS;
  let worker: Awaited<ReturnType<typeof startEvaluationWorker>>;
  try {
    worker = await startEvaluationWorker({
      connection: redisConnection(config),
      pool,
      concurrency,
      prefix: config.REDIS_KEY_PREFIX,
      maxReplyBytes: config.REPLY_MESSAGE_MAX_BYTES,
      onError: (error) => logger.warn({ err: error }, 'evaluation worker error'),
    });
  } catch (error) {
    await pool.close();
    throw error;
  }
  observeWorker(worker.worker, metrics);
  metrics.gaugeOnScrape('policy_engine_engine_thread_utilization', 'Share of the evaluation threads\' time spent running tasks since the pool started (0 to 1)', [], (set) =>
    set({}, pool.stats().utilization),
  );
  metrics.gaugeOnScrape('policy_engine_engine_queued_items', 'Evaluation items waiting for a thread in this process', [], (set) => set({}, pool.stats().queuedItems));
  logger.info(
    { threads: pool.size, concurrency, timeoutMs: config.EVALUATION_TIMEOUT_MS, stepBudget: config.EVALUATION_STEP_BUDGET },
    'evaluation engine started',
  );
  return {
    name: 'policy-evaluate',
    async stop() {
      // Batches in progress finish (their callers get answers) before the threads go.
      await worker.close();
      await pool.close();
    },
  };
}
