import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../index.js';

describe('evaluation engine settings', () => {
  it('have the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      ENGINE_THREADS: availableParallelism(),
      EVALUATION_TIMEOUT_MS: 1000,
      EVALUATION_STEP_BUDGET: 1_000_000,
      PROGRAM_CACHE_SIZE: 64,
      BATCH_MAX_ITEMS: 64,
      DISPATCH_FLUSH_MS: 1,
      NO_WORKER_TIMEOUT_MS: 5000,
      EVALUATE_BATCH_MAX_ITEMS: 1000,
      SIGNATURE_WINDOW_SECONDS: 300,
    });
    expect(config.WORKER_CONCURRENCY).toBeUndefined();
    expect(config.ENGINE_THREAD_MAX_MEMORY_MB).toBeUndefined();
  });

  it('are read as numbers', () => {
    const config = loadConfig({
      ENGINE_THREADS: '3',
      EVALUATION_TIMEOUT_MS: '250',
      EVALUATION_STEP_BUDGET: '5000000000',
      PROGRAM_CACHE_SIZE: '0',
      ENGINE_THREAD_MAX_MEMORY_MB: '128',
      WORKER_CONCURRENCY: '16',
      BATCH_MAX_ITEMS: '128',
      DISPATCH_FLUSH_MS: '0',
      NO_WORKER_TIMEOUT_MS: '2000',
      EVALUATE_BATCH_MAX_ITEMS: '50',
      SIGNATURE_WINDOW_SECONDS: '60',
    });
    expect(config).toMatchObject({
      ENGINE_THREADS: 3,
      EVALUATION_TIMEOUT_MS: 250,
      EVALUATION_STEP_BUDGET: 5_000_000_000,
      PROGRAM_CACHE_SIZE: 0,
      ENGINE_THREAD_MAX_MEMORY_MB: 128,
      WORKER_CONCURRENCY: 16,
      BATCH_MAX_ITEMS: 128,
      DISPATCH_FLUSH_MS: 0,
      NO_WORKER_TIMEOUT_MS: 2000,
      EVALUATE_BATCH_MAX_ITEMS: 50,
      SIGNATURE_WINDOW_SECONDS: 60,
    });
  });

  it('name each bad value', () => {
    let error: unknown;
    try {
      loadConfig({ ENGINE_THREADS: '0', EVALUATE_BATCH_MAX_ITEMS: 'many', SIGNATURE_WINDOW_SECONDS: '-5' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/^ENGINE_THREADS must be between 1 and 256/m);
    expect(problems).toMatch(/^EVALUATE_BATCH_MAX_ITEMS must be a whole number/m);
    expect(problems).toMatch(/^SIGNATURE_WINDOW_SECONDS must be a whole number/m);
  });

  it('refuse a no-worker timeout that does not exceed the evaluation timeout', () => {
    expect(() => loadConfig({ EVALUATION_TIMEOUT_MS: '5000', NO_WORKER_TIMEOUT_MS: '5000' })).toThrow(
      'NO_WORKER_TIMEOUT_MS must be greater than EVALUATION_TIMEOUT_MS (5000) (got "5000")',
    );
  });
});
