/**
 * Fair sharing of the engine's threads among tenants. Each tenant has its own queue; a free
 * thread takes its next task from the tenant whose turn it is (round robin), so a tenant with a
 * thousand queued items and a tenant with one each get every other task. A task holds as many of
 * that tenant's items as fit in a short time slice by the tenant's measured cost per item: cheap
 * items travel together (the thread hop is paid per task), costly ones go one at a time, so no
 * tenant holds a thread much longer than one of its own items takes.
 */

export interface ScheduledItem {
  tenantId: string;
}

export interface TenantSchedulerOptions {
  maxItemsPerTask: number;
  /** Target time one task keeps a thread, in ms. */
  taskSliceMs: number;
  /** Tenants whose cost estimate is remembered; default 4096. */
  rememberedTenants?: number;
}

export interface TenantScheduler<T extends ScheduledItem> {
  /** Appends items to their tenants' queues. */
  enqueue(items: readonly T[]): void;
  /** Puts items back at the front of their tenants' queues (a task that must run again). */
  requeue(items: readonly T[]): void;
  /** The next task, from the tenant whose turn it is; null when nothing waits. */
  next(freeThreads: number): T[] | null;
  /** Records what one of the tenant's items cost, in ms. */
  observe(tenantId: string, itemMs: number): void;
  /** Drops the queued items that match (of one tenant, when named). */
  discard(matches: (item: T) => boolean, tenantId?: string): void;
  /** Removes and returns everything queued. */
  drain(): T[];
  size(): number;
}

/**
 * Least work (ms) worth a task of its own when spreading: handing a task to a thread and its
 * results back costs about 0.1 ms of CPU on a 2-core machine (bench: src/engine/README.md).
 */
const MIN_SPREAD_TASK_MS = 1;

/** Weight of the newest observation in a tenant's running cost estimate. */
const COST_SMOOTHING = 0.2;

export function createTenantScheduler<T extends ScheduledItem>(options: TenantSchedulerOptions): TenantScheduler<T> {
  const { maxItemsPerTask, taskSliceMs } = options;
  if (!(taskSliceMs > 0)) throw new RangeError(`taskSliceMs must be positive, got ${taskSliceMs}`);
  const rememberedTenants = options.rememberedTenants ?? 4096;
  /** Insertion order is the round-robin order: a tenant served goes to the back. */
  const queues = new Map<string, T[]>();
  const costs = new Map<string, number>();
  let queued = 0;

  function costOf(tenantId: string): number {
    // A tenant not seen yet starts with a few items per task until its cost is known.
    return costs.get(tenantId) ?? taskSliceMs / 4;
  }

  function itemsPerTask(tenantId: string, waiting: number, freeThreads: number): number {
    const cost = Math.max(costOf(tenantId), 0.001);
    const bySlice = Math.floor(taskSliceMs / cost);
    // One tenant's batch is spread over the free threads rather than queued behind one of them,
    // but only in parts worth a thread hop: below MIN_SPREAD_TASK_MS a part costs more to hand
    // over than it saves in waiting.
    const parts = Math.min(Math.max(1, freeThreads), Math.max(1, Math.floor((waiting * cost) / MIN_SPREAD_TASK_MS)));
    const bySpread = Math.ceil(waiting / parts);
    return Math.max(1, Math.min(maxItemsPerTask, bySlice, bySpread));
  }

  return {
    enqueue(items) {
      for (const item of items) {
        let queue = queues.get(item.tenantId);
        if (queue === undefined) {
          queue = [];
          queues.set(item.tenantId, queue);
        }
        queue.push(item);
      }
      queued += items.length;
    },

    requeue(items) {
      const byTenant = new Map<string, T[]>();
      for (const item of items) {
        const list = byTenant.get(item.tenantId) ?? [];
        list.push(item);
        byTenant.set(item.tenantId, list);
      }
      for (const [tenantId, list] of byTenant) {
        const queue = queues.get(tenantId);
        if (queue === undefined) queues.set(tenantId, list);
        else queue.unshift(...list);
      }
      queued += items.length;
    },

    next(freeThreads) {
      const turn = queues.entries().next();
      if (turn.done) return null;
      const [tenantId, queue] = turn.value;
      const task = queue.splice(0, itemsPerTask(tenantId, queue.length, freeThreads));
      queues.delete(tenantId);
      if (queue.length > 0) queues.set(tenantId, queue);
      queued -= task.length;
      return task;
    },

    observe(tenantId, itemMs) {
      const previous = costs.get(tenantId);
      costs.delete(tenantId);
      costs.set(tenantId, previous === undefined ? itemMs : previous * (1 - COST_SMOOTHING) + itemMs * COST_SMOOTHING);
      if (costs.size > rememberedTenants) costs.delete(costs.keys().next().value!);
    },

    discard(matches, onlyTenant) {
      for (const [tenantId, queue] of queues) {
        if (onlyTenant !== undefined && tenantId !== onlyTenant) continue;
        const kept = queue.filter((item) => !matches(item));
        queued -= queue.length - kept.length;
        if (kept.length === 0) queues.delete(tenantId);
        else queues.set(tenantId, kept);
      }
    },

    drain() {
      const all = [...queues.values()].flat();
      queues.clear();
      queued = 0;
      return all;
    },

    size: () => queued,
  };
}
