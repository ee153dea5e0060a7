import type { Collection } from 'mongodb';
import type { WorkflowUsage } from '../../workflows/workflow-store.js';
import type { WorkflowUsageDocument } from './mongo-workflow-collections.js';

/** What one write adds to its tenant's counters. */
export interface UsageDelta {
  started: number;
  finished: number;
  storedBytes: number;
}

export interface WorkflowUsageShares {
  /**
   * Adds to the tenant's counters. Resolves once they are stored; never rejects (a failed write is
   * retried with the tenant's next one), so a caller may also leave it running.
   */
  add(tenantId: string, delta: Partial<UsageDelta>): Promise<void>;
  /** The tenant's counters: every writer's stored share, and what this writer has not stored yet. */
  read(tenantId: string): Promise<WorkflowUsage>;
}

interface Batch extends UsageDelta {
  /** Resolved when the write carrying these deltas has settled. */
  waiters: Array<() => void>;
}

const empty = (): Batch => ({ started: 0, finished: 0, storedBytes: 0, waiters: [] });

function addTo(target: UsageDelta, delta: Partial<UsageDelta>): void {
  target.started += delta.started ?? 0;
  target.finished += delta.finished ?? 0;
  target.storedBytes += delta.storedBytes ?? 0;
}

/**
 * A tenant's workflow counters as one document per writer (a repository instance), the way
 * rollups are kept: FerretDB applies `$inc` as read-modify-write without isolation, so concurrent
 * increments of one document are lost, and here no document ever sees two. Each writer updates its
 * share one write at a time per tenant; deltas that arrive meanwhile go out together in the next
 * write. A read sums the tenant's shares (one small document per process that wrote its workflows)
 * and adds what this writer has not stored yet (a write in flight may be counted twice for a
 * moment: the quotas err on the strict side).
 */
export function createWorkflowUsageShares(usage: Collection<WorkflowUsageDocument>, writer: string): WorkflowUsageShares {
  /** Deltas not sent yet, per tenant. */
  const pending = new Map<string, Batch>();
  /** The delta of the write in flight, per tenant (one at a time). */
  const inFlight = new Map<string, Batch>();

  async function flush(tenantId: string): Promise<void> {
    for (let batch = pending.get(tenantId); batch !== undefined && batch.waiters.length > 0; batch = pending.get(tenantId)) {
      pending.delete(tenantId);
      inFlight.set(tenantId, batch);
      try {
        await usage.updateOne(
          { _id: `${tenantId}:${writer}` },
          { $inc: { started: batch.started, finished: batch.finished, storedBytes: batch.storedBytes }, $setOnInsert: { tenantId, writer } },
          { upsert: true },
        );
      } catch {
        // Kept for the tenant's next write (an answer lost after the server applied it counts twice).
        const next = pending.get(tenantId) ?? empty();
        addTo(next, batch);
        pending.set(tenantId, next);
      } finally {
        inFlight.delete(tenantId);
      }
      for (const settle of batch.waiters) settle();
    }
  }

  return {
    add(tenantId, delta) {
      return new Promise<void>((resolve) => {
        const batch = pending.get(tenantId) ?? empty();
        addTo(batch, delta);
        batch.waiters.push(resolve);
        pending.set(tenantId, batch);
        if (!inFlight.has(tenantId)) void flush(tenantId);
      });
    },
    async read(tenantId) {
      const shares = await usage.find({ tenantId }, { projection: { started: 1, finished: 1, storedBytes: 1 } }).toArray();
      const total: UsageDelta = { started: 0, finished: 0, storedBytes: 0 };
      for (const share of shares) addTo(total, share);
      for (const own of [pending.get(tenantId), inFlight.get(tenantId)]) if (own !== undefined) addTo(total, own);
      // Workflows stored before the counters existed are not counted; their finishes could make this negative.
      return { unfinished: Math.max(0, total.started - total.finished), storedBytes: Math.max(0, total.storedBytes) };
    },
  };
}
