import { deserializeResult, type EnginePool } from '../engine/index.js';
import type { BatchTransport } from './batch-transport.js';

/** Batches run on a pool in this process (tests and tools; the service always uses the queue). */
export function createLocalBatchTransport(pool: EnginePool): BatchTransport {
  return {
    send(batch, deliver) {
      const run = pool.run(batch, { onResult: (position, result) => deliver(position, deserializeResult(result)) });
      return { done: run.results.then(() => undefined), cancel: (positions) => run.cancel(positions) };
    },
    close: async () => {},
  };
}
