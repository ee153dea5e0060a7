import { toBatch, type EngineRequest, type ItemResult } from '../engine/index.js';
import type { BatchTransport, SentBatch } from '../jobs/index.js';
import type { CallerGone } from './caller-gone.js';
import { DispatcherClosedError } from './dispatch-errors.js';

export interface EvaluationDispatcherOptions {
  /** Where batches go: the `policy-evaluate` queue (createRedisBatchTransport) or a local pool. */
  transport: BatchTransport;
  /** A batch is sent as soon as it holds this many items; default 64. */
  maxBatchItems?: number;
  /** …or this long after its first item arrived; default 1 (0 = next turn of the event loop). */
  flushMs?: number;
  /**
   * Batches on their way at once; default 4. When that many wait for answers, a due batch keeps
   * gathering items until one of them is answered, it is full, or it has waited `maxHoldMs`: under
   * load, batches grow instead of the queue carrying more, smaller jobs. Unbounded: Infinity.
   */
  maxInFlight?: number;
  /**
   * Longest a due batch is held for batches in flight, in ms; default 50. Bounds what slow batches
   * (another tenant's costly items) can add to the wait of requests that arrive behind them, while
   * batches in flight under ordinary load (answered within a few tens of ms) still let it grow.
   */
  maxHoldMs?: number;
  /**
   * Items of one tenant sent and not answered yet, at most; default 4 × maxBatchItems. Past it the
   * tenant's items wait here while other tenants' go out, so thousands of items of one tenant (a
   * batch, a deploy's test cases) never stand in the queue ahead of everyone else's: batches take
   * the waiting tenants' items in turn.
   */
  maxTenantItemsInFlight?: number;
}

export interface EvaluationDispatcherStats {
  batches: number;
  items: number;
  /** Batches sent and not answered yet. */
  inFlight: number;
}

export interface DispatchOptions {
  /** When the caller goes (its client hung up), its items are dropped or cancelled and the call rejects with the reason. */
  gone?: CallerGone;
}

export interface EvaluationDispatcher {
  /** One result per request, in order (a compile request answers a compile outcome). */
  dispatch(requests: readonly EngineRequest[], options?: DispatchOptions): Promise<ItemResult[]>;
  stats(): EvaluationDispatcherStats;
  /** Sends what is buffered, rejects what still waits with DispatcherClosedError, disconnects. */
  close(): Promise<void>;
}

interface Pending {
  request: EngineRequest;
  answer: Promise<ItemResult>;
  resolve(result: ItemResult): void;
  reject(error: unknown): void;
  /** Set once the item is on its way: its batch and place there. */
  sent?: { batch: SentBatch; position: number };
  done: boolean;
}

/**
 * The API side of evaluation. Concurrent requests — of any tenants — are coalesced into
 * micro-batches, so the queue round trip is paid per batch, not per request.
 */
export function createEvaluationDispatcher(options: EvaluationDispatcherOptions): EvaluationDispatcher {
  const maxBatchItems = positiveInteger('maxBatchItems', options.maxBatchItems ?? 64);
  const flushMs = options.flushMs ?? 1;
  if (!Number.isFinite(flushMs) || flushMs < 0) throw new RangeError(`flushMs must be a non-negative number, got ${flushMs}`);
  const maxInFlight = options.maxInFlight ?? 4;
  if (maxInFlight !== Infinity) positiveInteger('maxInFlight', maxInFlight);
  const maxHoldMs = options.maxHoldMs ?? 50;
  if (!Number.isFinite(maxHoldMs) || maxHoldMs < 0) throw new RangeError(`maxHoldMs must be a non-negative number, got ${maxHoldMs}`);
  const maxTenantItems = positiveInteger('maxTenantItemsInFlight', options.maxTenantItemsInFlight ?? 4 * maxBatchItems);
  const { transport } = options;

  const stats: EvaluationDispatcherStats = { batches: 0, items: 0, inFlight: 0 };
  /** Items not sent yet, by tenant, each in arrival order; the map's order is the tenants' turn. */
  const waiting = new Map<string, Pending[]>();
  /** Items sent and not answered, by tenant. */
  const tenantInFlight = new Map<string, number>();
  let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  /** The buffer is due but waits for a batch in flight to be answered (or for maxHoldMs). */
  let held = false;
  let holdTimer: NodeJS.Timeout | null = null;
  let closed = false;

  const roomOf = (tenantId: string) => maxTenantItems - (tenantInFlight.get(tenantId) ?? 0);

  /** Items that may go out now: each waiting tenant's, up to its room. */
  function sendable(): number {
    let count = 0;
    for (const [tenantId, items] of waiting) count += Math.min(items.length, Math.max(0, roomOf(tenantId)));
    return count;
  }

  /** Up to maxBatchItems sendable items, one per tenant in turn; a tenant served goes to the back of the turn. */
  function takeBatch(): Pending[] {
    const batch: Pending[] = [];
    const taken = new Map<string, number>();
    let progress = true;
    while (batch.length < maxBatchItems && progress) {
      progress = false;
      for (const [tenantId, items] of waiting) {
        if (batch.length >= maxBatchItems) break;
        const count = taken.get(tenantId) ?? 0;
        if (count >= items.length || count >= roomOf(tenantId)) continue;
        batch.push(items[count]!);
        taken.set(tenantId, count + 1);
        progress = true;
      }
    }
    for (const [tenantId, count] of taken) {
      const rest = waiting.get(tenantId)!.slice(count);
      waiting.delete(tenantId);
      if (rest.length > 0) waiting.set(tenantId, rest);
    }
    return batch;
  }

  function cancelTimer(): void {
    if (timer === null) return;
    if (flushMs === 0) clearImmediate(timer as NodeJS.Immediate);
    else clearTimeout(timer as NodeJS.Timeout);
    timer = null;
  }

  function startTimer(): void {
    if (timer === null && !held) timer = flushMs === 0 ? setImmediate(() => flushDue(false)) : setTimeout(() => flushDue(false), flushMs);
  }

  /** The buffer is due (timer, full, or closing): send it unless enough batches are on their way. */
  function flushDue(force: boolean): void {
    cancelTimer();
    while (sendable() >= maxBatchItems) send(takeBatch());
    const ready = sendable();
    if (ready === 0) return;
    if (!force && stats.inFlight >= maxInFlight) {
      if (!held) {
        held = true;
        holdTimer = setTimeout(() => flushDue(true), maxHoldMs);
      }
      return;
    }
    held = false;
    if (holdTimer !== null) {
      clearTimeout(holdTimer);
      holdTimer = null;
    }
    send(takeBatch());
  }

  function send(entries: Pending[]): void {
    stats.batches++;
    stats.items += entries.length;
    stats.inFlight++;
    for (const entry of entries) tenantInFlight.set(entry.request.tenantId, (tenantInFlight.get(entry.request.tenantId) ?? 0) + 1);
    // Each caller is answered as soon as its own item is done, not when the batch's slowest is.
    const sent = transport.send(toBatch(entries.map((entry) => entry.request)), (position, result) => {
      const entry = entries[position];
      if (entry !== undefined) settle(entry, () => entry.resolve(result));
    });
    entries.forEach((entry, position) => (entry.sent = { batch: sent, position }));
    const answered = () => {
      stats.inFlight--;
      if (held) flushDue(false);
    };
    sent.done.then(answered, (error: unknown) => {
      answered();
      for (const entry of entries) settle(entry, () => entry.reject(error));
    });
  }

  function settle(entry: Pending, answer: () => void): void {
    if (entry.done) return;
    entry.done = true;
    answer();
    if (entry.sent === undefined) return;
    const tenantId = entry.request.tenantId;
    const left = (tenantInFlight.get(tenantId) ?? 1) - 1;
    if (left === 0) tenantInFlight.delete(tenantId);
    else tenantInFlight.set(tenantId, left);
    // Room for a tenant whose items wait only for it.
    if (waiting.has(tenantId)) startTimer();
  }

  function abandon(entries: readonly Pending[], reason: unknown): void {
    const live = entries.filter((entry) => !entry.done);
    const unsent = new Set(live.filter((entry) => entry.sent === undefined));
    for (const [tenantId, items] of waiting) {
      const rest = items.filter((entry) => !unsent.has(entry));
      if (rest.length === 0) waiting.delete(tenantId);
      else waiting.set(tenantId, rest);
    }
    const byBatch = new Map<SentBatch, number[]>();
    for (const entry of live) {
      settle(entry, () => entry.reject(reason));
      if (entry.sent === undefined) continue;
      const positions = byBatch.get(entry.sent.batch) ?? [];
      positions.push(entry.sent.position);
      byBatch.set(entry.sent.batch, positions);
    }
    for (const [batch, positions] of byBatch) batch.cancel(positions);
  }

  function enqueue(request: EngineRequest): Pending {
    let resolve!: Pending['resolve'];
    let reject!: Pending['reject'];
    const answer = new Promise<ItemResult>((onResolve, onReject) => {
      resolve = onResolve;
      reject = onReject;
    });
    const entry: Pending = { request, answer, resolve, reject, done: false };
    const items = waiting.get(request.tenantId);
    if (items === undefined) waiting.set(request.tenantId, [entry]);
    else items.push(entry);
    return entry;
  }

  return {
    dispatch(requests, dispatchOptions = {}) {
      if (closed) return Promise.reject(new DispatcherClosedError());
      const { gone } = dispatchOptions;
      if (gone?.reason !== undefined) return Promise.reject(gone.reason);
      const entries = requests.map(enqueue);
      if (sendable() >= maxBatchItems) flushDue(false);
      else if (waiting.size > 0) startTimer();
      const all = Promise.all(entries.map((entry) => entry.answer));
      if (gone === undefined) return all;
      const unregister = gone.onGone(() => abandon(entries, gone.reason));
      return all.finally(unregister);
    },
    stats: () => ({ ...stats }),
    async close() {
      if (closed) return;
      closed = true;
      flushDue(true);
      // What a tenant's room kept back is not sent after all.
      for (const items of waiting.values()) for (const entry of items) settle(entry, () => entry.reject(new DispatcherClosedError()));
      waiting.clear();
      await transport.close();
    },
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
