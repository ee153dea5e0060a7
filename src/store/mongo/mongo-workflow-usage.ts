import type { Collection } from 'mongodb';
import type { WorkflowUsage } from '../ports.js';
import type { WorkflowUsageDocument } from './mongo-workflow-collections.js';

/** What one write adds to its tenant's counters. */
export interface UsageDelta {
  started?: number;
  finished?: number;
  storedBytes?: number;
}

export interface WorkflowUsageShares {
  /** Adds to the tenant's counters; resolves once they are stored (never rejects: a failed write is retried with the next). */
  add(tenantId: string, delta: UsageDelta): Promise<void>;
  /** The tenant's counters: every writer's share, and what this writer has not stored yet. */
  read(tenantId: string): Promise<WorkflowUsage>;
}

interface Pending {
  started: number;
  finished: number;
  storedBytes: number;
  /** Resolved when the write carrying these deltas has settled. */
  waiters: Array<() => void>;
}

/**
 * A tenant's workflow counters as one document per writer (a repository instance), the way
 * rollups are kept: FerretDB applies `$inc` as read-modify-write without isolation, so concurrent
 * increments of one document are lost, and here no document ever sees two. Each writer updates its
 * share one write at a time per tenant; deltas that arrive meanwhile go out together in the next
 * write. A read sums the tenant's shares (one small document per process that wrote its workflows).
 */
export function createWorkflowUsageShares(usage: Collection<WorkflowUsageDocument>, writer: string): WorkflowUsageShares {
  const pending = new Map<string, Pending>();
  const writing = new Set<string>();

  async function flush(tenantId: string): Promise<void> {
    writing.add(tenantId);
    try {
      for (;;) {
        const batch = pending.get(tenantId);
        if (batch === undefined) return;
        pending.delete(tenantId);
        try {
          await usage.updateOne(
            { _id: `${tenantId}:${writer}` },
            { $inc: { started: batch.started, finished: batch.finished, storedBytes: batch.storedBytes }, $setOnInsert: { tenantId, writer } },
            { upsert: true },
          );
        } catch {
          // Kept for the next write of the tenant (an answer lost after the server applied it counts twice:
          // the quota errs on the strict side).
          const next = pending.get(tenantId);
          if (next === undefined) pending.set(tenantId, { ...batch, waiters: [] });
          else Object.assign(next, { started: next.started + batch.started, finished: next.finished + batch.finished, storedBytes: next.storedBytes + batch.storedBytes });
        }
        for (const settle of batch.waiters) settle();
        // Counters that failed wait for the next delta of the tenant rather than retrying at once.
        if (pending.get(tenantId)?.waiters.length === 0) return;
      }
    } finally {
      writing.delete(tenantId);
    }
  }

  return {
    add(tenantId, delta) {
      return new Promise<void>((resolve) => {
        let batch = pending.get(tenantId);
        if (batch === undefined) {
          batch = { started: 0, finished: 0, storedBytes: 0, waiters: [] };
          pending.set(tenantId, batch);
        }
        batch.started += delta.started ?? 0;
        batch.finished += delta.finished ?? 0;
        batch.storedBytes += delta.storedBytes ?? 0;
        batch.waiters.push(resolve);
        if (!writing.has(tenantId)) void flush(tenantId);
      });
    },
    async read(tenantId) {
      const shares = await usage.find({ tenantId }, { projection: { started: 1, finished: 1, storedBytes: 1 } }).toArray();
      const own = pending.get(tenantId);
      let started = own?.started ?? 0;
      let finished = own?.finished ?? 0;
      let storedBytes = own?.storedBytes ?? 0;
      for (const share of shares) {
        started += share.started ?? 0;
        finished += share.finished ?? 0;
        storedBytes += share.storedBytes ?? 0;
      }
      // Workflows stored before the counters existed are not counted; their finishes could make this negative.
      return { unfinished: Math.max(0, started - finished), storedBytes: Math.max(0, storedBytes) };
    },
  };
}
