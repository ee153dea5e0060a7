import type { RollupIncrement, RollupRepository } from '../rollups/index.js';

/** One evaluation of a stored policy, as counted in its per-minute bucket. */
export interface RollupSample {
  policyModule: string;
  policyFunction: string;
  version: number;
  ok: boolean;
  executionTimeMs: number;
}

export interface RollupRecorderOptions {
  /**
   * How long a lone sample waits for others to share its write. Default 0: the next turn of the
   * event loop (the samples of one turn share a write; callers wait for it, so no fixed delay).
   */
  flushIntervalMs?: number;
  now?: () => Date;
}

export interface RollupRecorder {
  /** Counts the sample in the bucket of the current minute; resolves once that is stored. */
  record(tenantId: string, sample: RollupSample): Promise<void>;
  /** Resolves when every sample recorded before the call is stored (or has failed). */
  flush(): Promise<void>;
}

interface TenantPending {
  increments: Map<string, RollupIncrement>;
  waiters: Array<{ resolve(): void; reject(error: unknown): void }>;
}

export function minuteOf(at: Date): string {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000).toISOString();
}

/**
 * Sums samples in memory per tenant and bucket and writes them in one `add` per tenant, so the
 * store sees one write per bucket per flush, however many evaluations there were. While a write is
 * in flight, new samples gather for the next one.
 */
export function createRollupRecorder(repository: RollupRepository, options: RollupRecorderOptions = {}): RollupRecorder {
  const flushIntervalMs = options.flushIntervalMs ?? 0;
  if (!Number.isFinite(flushIntervalMs) || flushIntervalMs < 0) throw new RangeError('flushIntervalMs must be a non-negative number');
  const now = options.now ?? (() => new Date());
  let pending = new Map<string, TenantPending>();
  let cancelTimer: (() => void) | undefined;
  let running: Promise<void> | null = null;

  function schedule(): void {
    if (cancelTimer !== undefined || running !== null) return;
    if (flushIntervalMs === 0) {
      const immediate = setImmediate(() => void drain());
      cancelTimer = () => clearImmediate(immediate);
    } else {
      const timeout = setTimeout(() => void drain(), flushIntervalMs);
      cancelTimer = () => clearTimeout(timeout);
    }
  }

  async function writeTenant(tenantId: string, batch: TenantPending): Promise<void> {
    try {
      await repository.add(tenantId, [...batch.increments.values()]);
      for (const waiter of batch.waiters) waiter.resolve();
    } catch (error) {
      for (const waiter of batch.waiters) waiter.reject(error);
    }
  }

  function drain(): Promise<void> {
    cancelTimer?.();
    cancelTimer = undefined;
    if (running !== null) return running;
    running = (async () => {
      while (pending.size > 0) {
        const batch = pending;
        pending = new Map();
        await Promise.all([...batch].map(([tenantId, tenantBatch]) => writeTenant(tenantId, tenantBatch)));
      }
    })().finally(() => {
      running = null;
      if (pending.size > 0) schedule();
    });
    return running;
  }

  return {
    record(tenantId, sample) {
      const increment: RollupIncrement = {
        policyModule: sample.policyModule,
        policyFunction: sample.policyFunction,
        version: sample.version,
        minute: minuteOf(now()),
        count: 1,
        failures: sample.ok ? 0 : 1,
        timeSum: sample.executionTimeMs,
        max: sample.executionTimeMs,
        timeSquares: sample.executionTimeMs * sample.executionTimeMs,
      };
      let tenant = pending.get(tenantId);
      if (tenant === undefined) {
        tenant = { increments: new Map(), waiters: [] };
        pending.set(tenantId, tenant);
      }
      const key = `${increment.policyModule}:${increment.policyFunction}:${increment.version}:${increment.minute}`;
      const existing = tenant.increments.get(key);
      if (existing === undefined) {
        tenant.increments.set(key, increment);
      } else {
        existing.count += 1;
        existing.failures += increment.failures;
        existing.timeSum += increment.timeSum;
        existing.timeSquares += increment.timeSquares;
        existing.max = Math.max(existing.max, increment.max);
      }
      const promise = new Promise<void>((resolve, reject) => tenant.waiters.push({ resolve, reject }));
      schedule();
      return promise;
    },

    async flush() {
      await drain();
    },
  };
}
