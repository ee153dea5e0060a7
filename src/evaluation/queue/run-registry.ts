import type { EngineRun } from '../../engine/index.js';
import type { PolicyEvaluateCancel } from './policy-evaluate-job.js';

export interface RunRegistryOptions {
  /** How long a cancellation for a batch not taken yet is remembered; default 60 s. */
  rememberMs?: number;
  /** Most such cancellations remembered at once (oldest forgotten first); default 10,000. */
  maxRemembered?: number;
  now?: () => number;
}

/** The batches a worker is running, so a cancellation reaches the right run even if it comes first. */
export interface RunRegistry {
  /** A job started: applies a cancellation that arrived before it. */
  register(batchId: string, run: EngineRun): void;
  unregister(batchId: string): void;
  cancel(message: PolicyEvaluateCancel): void;
}

/**
 * Cancellations are broadcast to every worker. One that names a batch still waiting in Redis (or
 * running on another worker) is remembered for a while, so a worker that takes the job later drops
 * what nobody waits for instead of running it.
 */
export function createRunRegistry(options: RunRegistryOptions = {}): RunRegistry {
  const rememberMs = options.rememberMs ?? 60_000;
  const maxRemembered = options.maxRemembered ?? 10_000;
  const now = options.now ?? Date.now;
  const runs = new Map<string, EngineRun>();
  /** Insertion order is arrival order, so the oldest are the first to forget. */
  const early = new Map<string, { positions: number[] | undefined; at: number }>();

  function forgetOld(): void {
    const horizon = now() - rememberMs;
    for (const [batchId, entry] of early) {
      if (entry.at > horizon && early.size <= maxRemembered) break;
      early.delete(batchId);
    }
  }

  return {
    register(batchId, run) {
      runs.set(batchId, run);
      const waiting = early.get(batchId);
      if (waiting === undefined) return;
      early.delete(batchId);
      run.cancel(waiting.positions);
    },
    unregister(batchId) {
      runs.delete(batchId);
    },
    cancel({ batchId, positions }) {
      if (typeof batchId !== 'string') return;
      const chosen = Array.isArray(positions) ? positions.filter((p) => Number.isInteger(p)) : undefined;
      const run = runs.get(batchId);
      if (run !== undefined) {
        run.cancel(chosen);
        return;
      }
      const previous = early.get(batchId);
      // Undefined positions mean the whole batch, which absorbs any list.
      const all = chosen === undefined || (previous !== undefined && previous.positions === undefined);
      const merged = all ? undefined : [...(previous?.positions ?? []), ...chosen];
      early.delete(batchId);
      early.set(batchId, { positions: merged, at: now() });
      forgetOld();
    },
  };
}
